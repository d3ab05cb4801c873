import Synchronization
import Testing
import StrobeHCI

#if canImport(Glibc)
import Glibc
#endif

/// The kinds of stream a `StreamTransport` runs over; each test runs on every one.
enum StreamKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case socketPair, tcp, unixPath, unixAbstract

    var testDescription: String { rawValue }

    /// A transport and the descriptor of its far end; `cleanUp` removes what the link left behind.
    func open() throws -> (transport: StreamTransport, peer: Int32, cleanUp: @Sendable () -> Void) {
        switch self {
        case .socketPair:
            let (near, far) = Peer.socketPair(Int32(SOCK_STREAM.rawValue))
            return (try StreamTransport(fileDescriptor: near, name: "socketpair"), far, {})
        case .tcp:
            let listener = try TestListener.tcpLoopback()
            let transport = try StreamTransport.connectTCP(host: "127.0.0.1", port: listener.port)
            #expect(transport.name == "tcp:127.0.0.1:\(listener.port)")
            return (transport, try listener.acceptOne(), {})
        case .unixPath:
            let directory = try TestDirectory()
            let path = directory.path + "/h4.sock"
            let listener = try TestListener.unix(path: path)
            let transport = try StreamTransport.connectUnix(path: path)
            #expect(transport.name == "unix:\(path)")
            return (transport, try listener.acceptOne(), { directory.remove(path) })
        case .unixAbstract:
            let name = "@strobe-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let listener = try TestListener.unix(path: name)
            return (try StreamTransport.connectUnix(path: name), try listener.acceptOne(), {})
        }
    }
}

/// A listening socket made by the test; closed once its one connection is accepted.
struct TestListener {
    let fd: Int32
    var port: Int = 0

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ call: String) { description = "\(call) failed: errno \(errno)" }
    }

    static func tcpLoopback() throws -> TestListener {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw Failure("bind/listen") }
        return TestListener(fd: fd, port: Int(UInt16(bigEndian: address.sin_port)))
    }

    static func unix(path: String) throws -> TestListener {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let abstract = path.hasPrefix("@")
        let bytes = abstract ? [0] + Array(path.utf8.dropFirst()) : Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(2 + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0 }
        }
        guard bound else { throw Failure("bind/listen \(path)") }
        return TestListener(fd: fd)
    }

    /// The connection the transport made (already queued: connect completes against the backlog).
    func acceptOne() throws -> Int32 {
        defer { _ = close(fd) }
        let peer = accept(fd, nil, nil)
        guard peer >= 0 else { throw Failure("accept") }
        return peer
    }
}

/// A fresh directory under the system's temporary directory.
struct TestDirectory {
    let path: String

    init() throws {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? P_tmpdir
        var template = Array((base + "/strobe-XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else { throw TestListener.Failure("mkdtemp") }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func remove(_ file: String) {
        _ = unlink(file)
        _ = rmdir(path)
    }
}

extension Transports {
    @Suite("Stream transport", .timeLimit(.minutes(1)))
    struct StreamTransportTests {
        @Test(arguments: StreamKind.allCases)
        func packetsArriveIntactBothWays(kind: StreamKind) async throws {
            let (transport, peer, cleanUp) = try kind.open()
            defer { _ = close(peer); cleanUp() }
            let sink = RecordingSink()
            let traffic = sampleTraffic()

            let before = HostTime.now()
            try transport.start(sink)
            // Everything in one write: the reader deframes several packets out of each read.
            Peer.writeAll(peer, traffic.flatMap(\.h4))
            let received = await sink.packets(count: traffic.count)
            #expect(received == traffic)
            let times = sink.times
            #expect(times.allSatisfy { $0 >= before && $0 <= HostTime.now() })
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })

            for packet in traffic { try transport.send(packet.h4) }
            let sent = Peer.readExactly(peer, traffic.reduce(0) { $0 + $1.h4.count })
            #expect(try Peer.split(sent) == traffic)

            transport.close()
            #expect(sink.closes.count == 1)
            #expect(sink.closes.first == .some(nil))
        }

        @Test(arguments: StreamKind.allCases)
        func peerCloseReportsClosedByPeerOnce(kind: StreamKind) async throws {
            let (transport, peer, cleanUp) = try kind.open()
            defer { cleanUp() }
            let sink = RecordingSink()
            try transport.start(sink)
            let event = Packet.event(code: 0x0E, parameters: [1, 3, 0x0C, 0])
            Peer.writeAll(peer, event.h4)
            #expect(await sink.packets(count: 1) == [event])
            _ = close(peer)
            #expect(await sink.closeReason() == .closedByPeer)
            // The host closes afterwards, as it would on hearing it: no second report.
            transport.close()
            #expect(sink.closes.count == 1)
            #expect(throws: TransportError.notOpen) { try transport.send(event.h4) }
        }

        @Test(arguments: StreamKind.allCases)
        func garbageTypeByteReportsUnknownPacketType(kind: StreamKind) async throws {
            let (transport, peer, cleanUp) = try kind.open()
            defer { _ = close(peer); cleanUp() }
            let sink = RecordingSink()
            try transport.start(sink)
            let event = Packet.event(code: 0x0E, parameters: [1, 3, 0x0C, 0])
            Peer.writeAll(peer, event.h4 + [0x07, 0x01, 0x02])
            #expect(await sink.closeReason() == .unknownPacketType(0x07, offset: UInt64(event.h4.count)))
            #expect(sink.packets == [event])
            transport.close()
            #expect(sink.closes.count == 1)
        }

        @Test(arguments: StreamKind.allCases)
        func hostCloseReportsNilOnceWithoutHanging(kind: StreamKind) throws {
            let (transport, peer, cleanUp) = try kind.open()
            defer { _ = close(peer); cleanUp() }
            let sink = RecordingSink()
            try transport.start(sink)
            // The reader is blocked in read() with nothing coming: close must wake it.
            transport.close()
            #expect(sink.closes.count == 1)
            #expect(sink.closes.first == .some(nil))
            transport.close()
            #expect(sink.closes.count == 1)
            #expect(throws: TransportError.notOpen) { try transport.send([0x01, 0x03, 0x0C, 0x00]) }
            // The peer sees the link end.
            var byte: UInt8 = 0
            #expect(read(peer, &byte, 1) == 0)
        }

        /// Each read's packets are followed by one batch end, so that what they feed is woken
        /// once per read.
        @Test func eachReadEndsWithOneBatchEnd() async throws {
            let (near, far) = Peer.socketPair(Int32(SOCK_STREAM.rawValue))
            defer { _ = close(far) }
            let transport = try StreamTransport(fileDescriptor: near, name: "socketpair")
            defer { transport.close() }
            let sink = RecordingSink()
            try transport.start(sink)
            let traffic = sampleTraffic()
            Peer.writeAll(far, traffic.prefix(3).flatMap(\.h4))
            #expect(await sink.batchEnds(count: 1) == [3])
            Peer.writeAll(far, traffic.dropFirst(3).prefix(2).flatMap(\.h4))
            #expect(await sink.batchEnds(count: 2) == [3, 5])
            #expect(sink.packets == Array(traffic.prefix(5)))
        }

        @Test func peerClosingInsideAPacketReportsTruncation() async throws {
            let (near, far) = Peer.socketPair(Int32(SOCK_STREAM.rawValue))
            let transport = try StreamTransport(fileDescriptor: near, name: "socketpair")
            let sink = RecordingSink()
            try transport.start(sink)
            Peer.writeAll(far, Array(Packet.acl(handle: 0x40, data: pattern(100, seed: 1)).h4.prefix(30)))
            _ = close(far)
            #expect(await sink.closeReason() == .truncatedPacket(type: .acl, offset: 0))
            transport.close()
            #expect(sink.closes.count == 1)
        }

        @Test func sendBeforeStartIsNotOpen() throws {
            let (near, far) = Peer.socketPair(Int32(SOCK_STREAM.rawValue))
            defer { _ = close(far) }
            let transport = try StreamTransport(fileDescriptor: near, name: "socketpair")
            #expect(throws: TransportError.notOpen) { try transport.send([0x01, 0x03, 0x0C, 0x00]) }
            transport.close()
            #expect(throws: TransportError.notOpen) { try transport.start(RecordingSink()) }
        }

        @Test func eachSendIsOneWholeWriteEvenFromManyThreads() async throws {
            // On a seqpacket socket each write() is one record: a packet split over two writes,
            // or two interleaved, would show as a record that is not exactly one packet.
            let (near, far) = Peer.socketPair(Int32(SOCK_SEQPACKET.rawValue))
            defer { _ = close(far) }
            let transport = try StreamTransport(fileDescriptor: near, name: "seqpacket")
            try transport.start(RecordingSink())
            let senders = 4
            let perSender = 25
            func packet(_ sender: Int, _ index: Int) -> Packet {
                .acl(handle: UInt16(sender), data: pattern(index * 37 % 1000, seed: sender * 100 + index))
            }
            await withTaskGroup(of: Void.self) { group in
                for sender in 0..<senders {
                    group.addTask {
                        for index in 0..<perSender {
                            #expect(throws: Never.self) { try transport.send(packet(sender, index).h4) }
                        }
                    }
                }
            }
            var received: [Packet] = []
            for _ in 0..<senders * perSender {
                let record = Peer.readRecord(far)
                let packets = try Peer.split(record)
                #expect(packets.count == 1, "a record of \(record.count) bytes held \(packets.count) packets")
                received += packets
            }
            let expected = (0..<senders).flatMap { sender in (0..<perSender).map { packet(sender, $0) } }
            #expect(received.count == expected.count)
            for sender in 0..<senders {
                // Each sender's own packets keep their order.
                #expect(received.filter { $0.body[0] == UInt8(sender) } == expected.filter { $0.body[0] == UInt8(sender) })
            }
            transport.close()
        }

        @Test func closeFromInsideTheSinkStopsDeliveryAndReportsNil() async throws {
            let (near, far) = Peer.socketPair(Int32(SOCK_STREAM.rawValue))
            defer { _ = close(far) }
            let transport = try StreamTransport(fileDescriptor: near, name: "socketpair")
            // The sink closes the transport on the reader thread, at the first packet.
            let sink = RecordingSink(onPacket: { [transport] count in
                if count == 1 { transport.close() }
            })
            try transport.start(sink)
            let traffic = sampleTraffic()
            Peer.writeAll(far, traffic.flatMap(\.h4))
            #expect(await sink.closeReason() == nil)
            #expect(sink.packets == [traffic[0]])
            #expect(sink.closes.count == 1)
            transport.close()
            #expect(sink.closes.count == 1)
        }

        @Test func closeFromInsideTransportDidCloseDoesNotDeadlock() async throws {
            let (near, far) = Peer.socketPair(Int32(SOCK_STREAM.rawValue))
            let transport = try StreamTransport(fileDescriptor: near, name: "socketpair")
            let sink = RecordingSink(onClose: { [transport] in transport.close() })
            try transport.start(sink)
            _ = close(far)
            #expect(await sink.closeReason() == .closedByPeer)
            transport.close()
            #expect(sink.closes.count == 1)
        }

        @Test func connectionFailuresNameTheEndpointAndErrno() throws {
            // A port nobody listens on: bind one, note it, close it.
            let listener = try TestListener.tcpLoopback()
            _ = close(listener.fd)
            do {
                _ = try StreamTransport.connectTCP(host: "127.0.0.1", port: listener.port)
                Issue.record("connect to a closed port succeeded")
            } catch {
                #expect(error == .cannotOpen(
                    endpoint: "tcp:127.0.0.1:\(listener.port)",
                    reason: "connect: \(String(cString: strerror(ECONNREFUSED))) (errno \(ECONNREFUSED))"))
            }
            #expect(throws: TransportError.cannotOpen(endpoint: "tcp:127.0.0.1:0", reason: "port 0 is outside 1...65535")) {
                try StreamTransport.connectTCP(host: "127.0.0.1", port: 0)
            }
            let directory = try TestDirectory()
            defer { directory.remove(directory.path + "/none") }
            let missing = directory.path + "/none"
            #expect(throws: TransportError.cannotOpen(
                endpoint: "unix:\(missing)",
                reason: "connect: \(String(cString: strerror(ENOENT))) (errno \(ENOENT))")) {
                try StreamTransport.connectUnix(path: missing)
            }
            let tooLong = "/" + String(repeating: "x", count: 200)
            #expect(throws: TransportError.cannotOpen(endpoint: "unix:\(tooLong)", reason: "a unix socket path holds at most 107 bytes")) {
                try StreamTransport.connectUnix(path: tooLong)
            }
        }
    }
}
