import Synchronization
import Testing
import StrobeHCI

#if canImport(Glibc)
import Glibc
#endif

extension Transports {
    @Suite("Read coalescing", .timeLimit(.minutes(1)))
    struct ReadCoalescingTests {
        @Test func theHoldIsBoundedAndZeroIsOff() {
            #expect(ReadCoalescing.off.isOff)
            #expect(ReadCoalescing(microseconds: 0) == .off)
            #expect(ReadCoalescing(microseconds: ReadCoalescing.maximumMicroseconds)?.isOff == false)
            #expect(ReadCoalescing(microseconds: ReadCoalescing.maximumMicroseconds + 1) == nil)
            #expect(ReadCoalescing(microseconds: -1) == nil)
            #expect(ReadCoalescing(microseconds: 250)?.description == "250 µs")
            #expect(ReadCoalescing.off.description == "off")
        }

        /// After a read that brought ACL data the reader waits out the hold before it reads
        /// again. The next packets are written from inside the sink, in one write, before the
        /// reader can hold, so what is measured is the hold and not the writer's pace; they come
        /// in one read.
        @Test(arguments: [StreamKind.socketPair, .tcp])
        func aReadOfACLDataHoldsOffTheNextRead(kind: StreamKind) async throws {
            let microseconds = ReadCoalescing.maximumMicroseconds
            let (transport, peer) = try open(kind, try #require(ReadCoalescing(microseconds: microseconds)))
            defer { _ = close(peer) }
            defer { transport.close() }
            let acl = Packet.acl(handle: 0x40, data: pattern(40, seed: 3))
            let next = [Packet.event(code: 0x13, parameters: [1, 0x40, 0, 1, 0]), Packet.acl(handle: 0x40, data: pattern(9, seed: 4))]
            let sink = RecordingSink(onPacket: { count in
                if count == 1 { Peer.writeAll(peer, next.flatMap(\.h4)) }
            })
            try transport.start(sink)
            Peer.writeAll(peer, acl.h4)

            #expect(await sink.packets(count: 3) == [acl] + next)
            #expect(await sink.batchEnds(count: 2) == [1, 3])
            let times = sink.times
            #expect(times[1].nanoseconds - times[0].nanoseconds >= UInt64(microseconds) * 1000)
        }

        /// A transport with `coalescing` over `kind` (a socket pair, or TCP through `connectTCP`),
        /// and its far end.
        private func open(_ kind: StreamKind, _ coalescing: ReadCoalescing) throws -> (StreamTransport, Int32) {
            guard kind == .tcp else {
                let (near, far) = Peer.socketPair(Int32(SOCK_STREAM.rawValue))
                return (try StreamTransport(fileDescriptor: near, name: "socketpair", readCoalescing: coalescing), far)
            }
            let listener = try TestListener.tcpLoopback()
            let transport = try StreamTransport.connectTCP(host: "127.0.0.1", port: listener.port, readCoalescing: coalescing)
            return (transport, try listener.acceptOne())
        }

        /// A close while the reader holds off (from inside the sink, or from another thread, on a
        /// socket and on a tty-like descriptor woken through the wake pipe) ends the link once.
        @Test(arguments: [false, true], [false, true])
        func aCloseDuringTheHoldReportsNilOnce(fromSink: Bool, overPipe: Bool) async throws {
            let coalescing = try #require(ReadCoalescing(microseconds: ReadCoalescing.maximumMicroseconds))
            let near: Int32
            let far: Int32
            if overPipe {
                var ends: [Int32] = [-1, -1]
                #expect(pipe(&ends) == 0)
                (near, far) = (ends[0], ends[1])
            } else {
                (near, far) = Peer.socketPair(Int32(SOCK_STREAM.rawValue))
            }
            defer { _ = close(far) }
            let transport = try StreamTransport(fileDescriptor: near, name: "held", readCoalescing: coalescing)
            let sink = RecordingSink(onPacket: { _ in if fromSink { transport.close() } })
            try transport.start(sink)
            let acl = Packet.acl(handle: 0x40, data: pattern(40, seed: 5))
            Peer.writeAll(far, acl.h4)
            #expect(await sink.packets(count: 1) == [acl])
            if !fromSink { transport.close() }
            #expect(await sink.closeReason() == nil)
            transport.close()
            #expect(sink.closes.count == 1)
        }

        /// The reader asks the controller whether it may hold only after a read that brought ACL
        /// data: a read of events alone starts no hold.
        @Test func onlyAReadOfACLDataAsksToHold() async throws {
            let (near, far) = Peer.socketPair(Int32(SOCK_STREAM.rawValue))
            defer { _ = close(far) }
            let transport = try StreamTransport(
                fileDescriptor: near, name: "socketpair",
                readCoalescing: try #require(ReadCoalescing(microseconds: ReadCoalescing.maximumMicroseconds)))
            defer { transport.close() }
            let sink = PacingSink()
            try transport.start(sink)
            let event = Packet.event(code: 0x13, parameters: [1, 0x40, 0, 1, 0])
            Peer.writeAll(far, event.h4)
            #expect(await sink.recording.batchEnds(count: 1) == [1])
            Peer.writeAll(far, Packet.acl(handle: 0x40, data: pattern(12, seed: 6)).h4)
            #expect(await sink.recording.batchEnds(count: 2) == [1, 2])
            // Read after the ACL read's ask (the reader asks before its next read), and asking nothing.
            Peer.writeAll(far, event.h4)
            #expect(await sink.recording.batchEnds(count: 3) == [1, 2, 3])
            #expect(sink.asks.load(ordering: .relaxed) == 1)
        }
    }
}

/// A controller that never lets the reader hold, and counts how often it was asked.
private final class PacingSink: HCIPacketSink, HCIReceiveLowWater {
    let recording = RecordingSink()
    let asks = Atomic<Int>(0)

    func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
        recording.transportDidReceive(type, payload: payload, at: time)
    }
    func transportDidFinishBatch() { recording.transportDidFinishBatch() }
    func transportDidClose(_ error: TransportError?) { recording.transportDidClose(error) }
    func aclBytesCertainToFollow() -> Int { 0 }
    func readMayHold() -> Bool {
        asks.add(1, ordering: .relaxed)
        return false
    }
}
