import Synchronization
import Testing
@testable import StrobeHCI

#if canImport(Glibc)
import Glibc
#endif

/// A sink that records like `RecordingSink` and says it is owed `owed(packetsSoFar)` ACL data bytes.
private final class OwedSink: HCIPacketSink, HCIReceiveLowWater {
    let recording = RecordingSink()
    private let owed: @Sendable (Int) -> Int
    init(owed: @escaping @Sendable (Int) -> Int) { self.owed = owed }

    func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
        recording.transportDidReceive(type, payload: payload, at: time)
    }
    func transportDidFinishBatch() { recording.transportDidFinishBatch() }
    func transportDidClose(_ error: TransportError?) { recording.transportDidClose(error) }
    func aclBytesCertainToFollow() -> Int { owed(recording.packets.count) }
}

private func option<Value: BitwiseCopyable>(_ fd: Int32, _ name: Int32, as: Value.Type, _ zero: Value) -> Value {
    var value = zero
    var length = socklen_t(MemoryLayout<Value>.size)
    #expect(getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0)
    return value
}

extension Transports {
    @Suite("Receive low-water mark", .timeLimit(.minutes(1)))
    struct ReceiveLowWaterMarkTests {
        /// The owed data, and a packet type and an ACL header for each 251 bytes of it or part.
        @Test(arguments: [(0, 1), (1, 6), (231, 236), (251, 256), (252, 262), (502, 512), (503, 518)])
        func theMarkCountsAHeaderPerLargestFragment(owed: Int, bytes: Int) {
            #expect(ReceiveLowWaterMark.bytes(forOwedData: owed) == bytes)
        }

        /// A raised mark comes with the bound; going back to the first byte keeps the bound until
        /// a read times out, which lifts it.
        @Test func theSocketTakesTheMarkAndItsBound() throws {
            let listener = try TestListener.tcpLoopback()
            let transport = try StreamTransport.connectTCP(host: "127.0.0.1", port: listener.port)
            defer { transport.close() }
            let peer = try listener.acceptOne()
            defer { _ = close(peer) }
            // The far end stands in for the transport's socket: same options, same kernel code.
            var mark = ReceiveLowWaterMark(fd: peer, readBufferSize: 64 * 1024)
            #expect(option(peer, SO_RCVLOWAT, as: Int32.self, 0) == 1)

            mark.follow(owedData: 200)
            #expect(option(peer, SO_RCVLOWAT, as: Int32.self, 0) == 205)
            let bound = option(peer, SO_RCVTIMEO, as: timeval.self, timeval())
            #expect(bound.tv_sec == 0 && bound.tv_usec > 0)
            #expect(mark.mark == 205 && mark.bounded && !mark.failed)

            mark.follow(owedData: 0)
            #expect(option(peer, SO_RCVLOWAT, as: Int32.self, 0) == 1)
            #expect(mark.bounded)

            mark.readTimedOut()
            #expect(option(peer, SO_RCVLOWAT, as: Int32.self, 0) == 1)
            let lifted = option(peer, SO_RCVTIMEO, as: timeval.self, timeval())
            #expect(lifted.tv_sec == 0 && lifted.tv_usec == 0)
            #expect(mark.mark == 1 && !mark.bounded)
        }

        /// Over TCP, with the mark raised for the rest of a PDU, its fragments arrive whole and in
        /// order, one write each as a peer sends them.
        @Test func thePDUsFragmentsArriveWithTheMarkRaised() async throws {
            let listener = try TestListener.tcpLoopback()
            let transport = try StreamTransport.connectTCP(host: "127.0.0.1", port: listener.port)
            defer { transport.close() }
            let peer = try listener.acceptOne()
            defer { _ = close(peer) }
            let fragments = (1...4).map { Packet.acl(handle: 0x40, data: pattern(27, seed: $0)) }
            // After the first fragment, the other three's 81 data bytes are owed.
            let sink = OwedSink { $0 == 1 ? 81 : 0 }
            try transport.start(sink)
            Peer.writeAll(peer, fragments[0].h4)
            #expect(await sink.recording.batchEnds(count: 1) == [1])
            for fragment in fragments.dropFirst() { Peer.writeAll(peer, fragment.h4) }
            #expect(await sink.recording.packets(count: 4) == fragments)
        }

        /// A PDU whose fragments stop coming holds an event behind it only for the bound: the
        /// event arrives although the bytes the mark waits for never do.
        @Test func anEventBehindAStalledPDUStillArrives() async throws {
            let listener = try TestListener.tcpLoopback()
            let transport = try StreamTransport.connectTCP(host: "127.0.0.1", port: listener.port)
            defer { transport.close() }
            let peer = try listener.acceptOne()
            defer { _ = close(peer) }
            let first = Packet.acl(handle: 0x40, data: pattern(27, seed: 1))
            let event = Packet.event(code: 0x05, parameters: [0x00, 0x40, 0x00, 0x08])
            let sink = OwedSink { $0 == 1 ? 200 : 0 }
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
