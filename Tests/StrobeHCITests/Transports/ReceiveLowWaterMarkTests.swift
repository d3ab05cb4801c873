import StrobeBase
import Synchronization
import Testing
import StrobeHCI

#if canImport(Glibc)
import Glibc
#endif

/// A sink that records like `RecordingSink`, says it is owed `owed(packetsSoFar)` ACL data bytes,
/// and, each time it is asked, notes the socket's low-water mark and bound: what the reader set
/// after the read before. `onFirstAsk` runs on the reader's thread at the first ask, before the
/// reader sets the mark: what it writes is there before the next read, whatever the load.
private final class OwedSink: HCIPacketSink, HCIReceiveLowWater {
    let recording = RecordingSink()
    private let owed: @Sendable (Int) -> Int
    private let onFirstAsk: (@Sendable () -> Void)?
    private struct Asks {
        var marks: [(mark: Int32, bounded: Bool)] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<[(mark: Int32, bounded: Bool)], Never>)] = []
    }
    private let asks = Lock(Asks())
    private let socket = Atomic<Int32>(-1)

    init(owed: @escaping @Sendable (Int) -> Int, onFirstAsk: (@Sendable () -> Void)? = nil) {
        self.owed = owed
        self.onFirstAsk = onFirstAsk
    }

    func watch(_ transport: StreamTransport) { socket.store(transport.fileDescriptor, ordering: .relaxed) }
    var marksSeen: [(mark: Int32, bounded: Bool)] { asks.withLock { $0.marks } }

    /// The marks seen at the first `count` asks, once there have been that many.
    func marks(count: Int) async -> [(mark: Int32, bounded: Bool)] {
        await withCheckedContinuation { continuation in
            let marks = asks.withLock { a -> [(mark: Int32, bounded: Bool)]? in
                if a.marks.count >= count { return a.marks }
                a.waiters.append((count, continuation))
                return nil
            }
            if let marks { continuation.resume(returning: marks) }
        }
    }

    func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
        recording.transportDidReceive(type, payload: payload, at: time)
    }
    func transportDidFinishBatch() { recording.transportDidFinishBatch() }
    func transportDidClose(_ error: TransportError?) { recording.transportDidClose(error) }
    /// Never asked: these transports do not coalesce reads.
    func readMayHold() -> Bool { true }
    func aclBytesCertainToFollow() -> Int {
        let fd = socket.load(ordering: .relaxed)
        // Recorded, not checked here: this is the reader's thread, not the test's. A failed
        // getsockopt records a mark of -1, which no test expects.
        let mark = option(fd, SO_RCVLOWAT, as: Int32.self, 0) ?? -1
        let bound = option(fd, SO_RCVTIMEO, as: timeval.self, timeval())
        let ready = asks.withLock { a in
            a.marks.append((mark, bound.map { $0.tv_sec != 0 || $0.tv_usec != 0 } ?? false))
            let marks = a.marks
            var ready: [CheckedContinuation<[(mark: Int32, bounded: Bool)], Never>] = []
            a.waiters.removeAll { waiter in
                guard marks.count >= waiter.count else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready.map { ($0, marks) }
        }
        for (continuation, marks) in ready { continuation.resume(returning: marks) }
        if marksSeen.count == 1 { onFirstAsk?() }
        return owed(recording.packets.count)
    }
}

/// A TCP transport (not started) and the descriptor of its far end.
private func tcpLink() throws -> (transport: StreamTransport, peer: Int32) {
    let listener = try TestListener.tcpLoopback()
    let transport = try StreamTransport.connectTCP(host: "127.0.0.1", port: listener.port)
    do {
        return (transport, try listener.acceptOne())
    } catch {
        transport.close()
        throw error
    }
}

/// Four 27-byte ACL fragments on handle 0x40, each its own pattern (the sink, not their bytes,
/// says what is owed).
private func fourFragments() -> [Packet] {
    (1...4).map { Packet.acl(handle: 0x40, data: pattern(27, seed: $0)) }
}

/// The socket option's value; nil when `getsockopt` fails.
private func option<Value: BitwiseCopyable>(_ fd: Int32, _ name: Int32, as: Value.Type, _ zero: Value) -> Value? {
    var value = zero
    var length = socklen_t(MemoryLayout<Value>.size)
    return getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
}

extension Transports {
    @Suite("Receive low-water mark", .timeLimit(.minutes(1)))
    struct ReceiveLowWaterMarkTests {
        /// The owed data, a packet type and an ACL header for each largest packet's worth of it or
        /// part, less what the deframer holds of a packet begun; never under 1.
        @Test(arguments: [
            (0, 0, 251, 1), (1, 0, 251, 6), (231, 0, 251, 236), (251, 0, 251, 256), (252, 0, 251, 262),
            (502, 0, 251, 512), (503, 0, 251, 518), (231, 0, 4096, 236), (5000, 0, 4096, 5010),
            (10, 8, 251, 7), (10, 15, 251, 1), (0, 8, 251, 1),
        ])
        func theMarkIsTheFewestBytesTheRestCanComeIn(owed: Int, held: Int, largest: Int, bytes: Int) {
            #expect(ReceiveLowWaterMark.bytes(forOwedData: owed, held: held, largestFragment: largest) == bytes)
        }

        /// A raised mark comes with the bound; going back to the first byte keeps the bound until
        /// a read times out, which lifts it.
        @Test func theSocketTakesTheMarkAndItsBound() throws {
            let (transport, peer) = try tcpLink()
            defer { transport.close(); _ = close(peer) }
            // The far end stands in for the transport's socket: same options, same kernel code.
            var mark = ReceiveLowWaterMark(fd: peer, readBufferSize: 64 * 1024, largestFragment: 251)
            #expect(option(peer, SO_RCVLOWAT, as: Int32.self, 0) == 1)

            mark.follow(owedData: 200, held: 0)
            #expect(option(peer, SO_RCVLOWAT, as: Int32.self, 0) == 205)
            let bound = try #require(option(peer, SO_RCVTIMEO, as: timeval.self, timeval()))
            #expect(bound.tv_sec == 0 && bound.tv_usec > 0)
            #expect(mark.mark == 205 && mark.bounded && !mark.failed)

            mark.follow(owedData: 0, held: 0)
            #expect(option(peer, SO_RCVLOWAT, as: Int32.self, 0) == 1)
            #expect(mark.bounded)

            mark.readTimedOut()
            #expect(option(peer, SO_RCVLOWAT, as: Int32.self, 0) == 1)
            let lifted = try #require(option(peer, SO_RCVTIMEO, as: timeval.self, timeval()))
            #expect(lifted.tv_sec == 0 && lifted.tv_usec == 0)
            #expect(mark.mark == 1 && !mark.bounded)
        }

        /// Over TCP, after a read that leaves a PDU part-way, the reader waits for the rest in one
        /// read: its socket's mark is the rest's bytes (81 owed, one header), with the bound; after
        /// the PDU, back to 1. The fragments arrive whole and in order.
        @Test func overTCPTheReaderWaitsForTheRestOfThePDU() async throws {
            let (transport, peer) = try tcpLink()
            defer { transport.close(); _ = close(peer) }
            let fragments = fourFragments()
            // The other three fragments are written, one write each, as the reader is asked
            // after the first: they are all there for the read after the mark is set.
            let sink = OwedSink(owed: { $0 == 1 ? 81 : 0 }, onFirstAsk: {
                for fragment in fragments.dropFirst() { Peer.writeAll(peer, fragment.h4) }
            })
            sink.watch(transport)
            try transport.start(sink)
            Peer.writeAll(peer, fragments[0].h4)
            #expect(await sink.recording.packets(count: 4) == fragments)
            #expect(await sink.recording.batchEnds(count: 2) == [1, 4])
            // Asked after each read: first with nothing set, then with the rest's mark and the
            // bound, then back at 1 once the PDU is whole.
            let seen = await sink.marks(count: 2)
            #expect(seen[0].mark == 1 && !seen[0].bounded)
            #expect(seen[1].mark == 86 && seen[1].bounded)
            let asked = sink.marksSeen.count
            Peer.writeAll(peer, Packet.event(code: 0x0E, parameters: [1, 3, 0x0C, 0]).h4)
            #expect(await sink.marks(count: asked + 1).last?.mark == 1)
        }

        /// A read that ends part-way through a fragment: the bytes the deframer holds of it come
        /// off the mark (81 owed, one header, 10 held: 76).
        @Test func theBytesHeldOfAFragmentComeOffTheMark() async throws {
            let (transport, peer) = try tcpLink()
            defer { transport.close(); _ = close(peer) }
            let fragments = fourFragments()
            let rest = fragments.dropFirst().flatMap(\.h4)
            let sink = OwedSink(owed: { $0 == 1 ? 81 : 0 }, onFirstAsk: { Peer.writeAll(peer, Array(rest.dropFirst(10))) })
            sink.watch(transport)
            try transport.start(sink)
            Peer.writeAll(peer, fragments[0].h4 + rest.prefix(10))
            #expect(await sink.recording.packets(count: 4) == fragments)
            let seen = await sink.marks(count: 2)
            #expect(seen[1].mark == 76 && seen[1].bounded)
        }

        /// Unix sockets read as before: the sink is never asked.
        @Test func overUnixSocketsTheReaderDoesNotAsk() async throws {
            let (near, far) = Peer.socketPair(Int32(SOCK_STREAM.rawValue))
            defer { _ = close(far) }
            let transport = try StreamTransport(fileDescriptor: near, name: "socketpair")
            defer { transport.close() }
            let sink = OwedSink { _ in 81 }
            sink.watch(transport)
            try transport.start(sink)
            let fragments = (1...2).map { Packet.acl(handle: 0x40, data: pattern(27, seed: $0)) }
            Peer.writeAll(far, fragments[0].h4)
            #expect(await sink.recording.batchEnds(count: 1) == [1])
            // A second read: an ask after the first would have come before it.
            Peer.writeAll(far, fragments[1].h4)
            #expect(await sink.recording.batchEnds(count: 2) == [1, 2])
            #expect(sink.marksSeen.isEmpty)
        }

        /// A PDU whose fragments stop coming holds an event behind it only for the bound (the
        /// default): the event arrives although the bytes the mark waits for never do. Without
        /// the bound the read would wait for good. The mark itself is checked by the tests above:
        /// here the event may come before the bound passes or after, which lifts the mark, as the
        /// machine's load decides.
        @Test func anEventBehindAStalledPDUStillArrives() async throws {
            let (transport, peer) = try tcpLink()
            defer { transport.close(); _ = close(peer) }
            let first = Packet.acl(handle: 0x40, data: pattern(27, seed: 1))
            let event = Packet.event(code: 0x05, parameters: [0x00, 0x40, 0x00, 0x08])
            let sink = OwedSink { $0 == 1 ? 200 : 0 }
            sink.watch(transport)
            try transport.start(sink)
            Peer.writeAll(peer, first.h4)
            #expect(await sink.recording.batchEnds(count: 1) == [1])
            Peer.writeAll(peer, event.h4)
            #expect(await sink.recording.packets(count: 2) == [first, event])
            // The link goes on as before: the next packet comes at its first byte.
            Peer.writeAll(peer, first.h4)
            #expect(await sink.recording.packets(count: 3) == [first, event, first])
        }
    }
}
