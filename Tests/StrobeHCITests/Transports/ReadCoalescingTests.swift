import Synchronization
import Testing
@testable import StrobeHCI

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
        /// again. The next packets are written from inside the sink, before the reader can hold,
        /// so what is measured is the hold and not the writer's pace; they come in one read.
        @Test(arguments: [StreamKind.socketPair, .tcp])
        func aReadOfACLDataHoldsOffTheNextRead(kind: StreamKind) async throws {
            let microseconds = ReadCoalescing.maximumMicroseconds
            let (transport, peer) = try open(kind, try #require(ReadCoalescing(microseconds: microseconds)))
            defer { _ = close(peer) }
            defer { transport.close() }
            let acl = Packet.acl(handle: 0x40, data: pattern(40, seed: 3))
            let next = [Packet.event(code: 0x13, parameters: [1, 0x40, 0, 1, 0]), Packet.acl(handle: 0x40, data: pattern(9, seed: 4))]
            let sink = RecordingSink(onPacket: { count in
                if count == 1 { for packet in next { Peer.writeAll(peer, packet.h4) } }
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

        /// A close while the reader holds off ends the link once, as a close at any other time.
        @Test func aCloseDuringTheHoldReportsNilOnce() async throws {
            let (near, far) = Peer.socketPair(Int32(SOCK_STREAM.rawValue))
            defer { _ = close(far) }
            let transport = try StreamTransport(
                fileDescriptor: near, name: "socketpair",
                readCoalescing: try #require(ReadCoalescing(microseconds: ReadCoalescing.maximumMicroseconds)))
            let sink = RecordingSink()
            try transport.start(sink)
            let acl = Packet.acl(handle: 0x40, data: pattern(40, seed: 5))
            Peer.writeAll(far, acl.h4)
            #expect(await sink.packets(count: 1) == [acl])
            transport.close()
            #expect(sink.closes.count == 1)
            #expect(sink.closes.first == .some(nil))
        }
    }
}
