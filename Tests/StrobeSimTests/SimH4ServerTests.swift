#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StrobeBase
import StrobeHCI
import StrobeTestSupport
import Testing

import StrobeSim

/// `sim serve`'s server writes to its host from a thread of its own: a host that stops reading
/// holds up no one else in the world, and one that falls too far behind is dropped.
@Suite(.timeLimit(.minutes(1))) struct SimH4ServerTests {
    struct ConnectFailed: Error {
        let errno: Int32
    }

    /// A host on the server's socket: it sends, and reads only when asked to.
    final class Client: Sendable {
        let fd: Int32

        init(_ endpoint: SimH4Server.Endpoint) throws {
            guard case .unix(let path) = endpoint else { throw ConnectFailed(errno: EINVAL) }
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            // A small send buffer: once a write returns, the server has read all but a few KB.
            var small: Int32 = 4096
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in bytes.enumerated() { raw[index] = byte }
                raw[0] = 0  // an abstract name
            }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
            let result = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) } }
            guard result == 0 else { throw ConnectFailed(errno: errno) }
        }

        deinit { close(fd) }

        /// Writes all of `bytes`; blocks while the server has not read what came before.
        func write(_ bytes: [UInt8]) -> Bool {
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let sent = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                    guard sent > 0 else { return false }
                    offset += sent
                }
                return true
            }
        }

        /// Whether the server has shut its end (read nothing yet: the data before the end waits).
        var serverShutDown: Bool {
            let peerShutDown: Int16 = 0x2000  // POLLRDHUP (Linux; Glibc's header hides it without _GNU_SOURCE)
            var ready = pollfd(fd: fd, events: peerShutDown, revents: 0)
            return poll(&ready, 1, 0) == 1 && ready.revents & peerShutDown != 0
        }

        /// Reads until the stream ends: how many bytes came, and whether the server ended it
        /// (rather than a read failing).
        func readToEnd() -> (bytes: Int, ended: Bool) {
            var total = 0
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return (total, count == 0) }
                total += count
            }
        }
    }

    /// Read BD_ADDR commands each test sends without reading the answers.
    static let floodCommands = 30_000

    static func endpoint() -> SimH4Server.Endpoint {
        .unix(path: "@strobe-sim-h4-\(UInt64.random(in: 0...UInt64.max))")
    }

    /// Read BD_ADDR, `count` times: each is answered by a 13-byte Command Complete.
    static func readAddressCommands(_ count: Int) -> [UInt8] {
        Array([[UInt8]](repeating: [0x01, 0x09, 0x10, 0x00], count: count).joined())
    }

    @Test func aHostThatStopsReadingHoldsUpNoOtherHostInTheWorld() async throws {
        let world = SimWorld(scenario: SimScenario(devices: []), clock: ContinuousClock())
        try await world.start()
        defer { world.stop() }
        let server = try SimH4Server(world: world, listen: Self.endpoint())
        server.run()
        defer { server.close() }
        let client = try Client(server.endpoint)
        // Once the write returns, the server has taken all but a few KB of the commands, and
        // their answers (13 bytes each, 390 KB) are more than the socket holds for a host that
        // does not read (at most its 208 KB send buffer).
        let flood = Self.readAddressCommands(Self.floodCommands)
        #expect(await offPool { client.write(flood) })

        // Another host of the same world still has its Reset answered.
        let controller = world.makeHostController()
        let recorder = SimWorldWithThePoolBlockedTests.EventRecorder()
        try controller.start(recorder)
        defer { controller.close() }
        try [UInt8]([0x01, 0x03, 0x0C, 0x00]).withUnsafeBytes { try controller.send($0) }
        let answered = await offPool {
            waitOnThisThread(for: .seconds(10)) {
                recorder.received { $0.count >= 6 && $0[0] == 0x0E && $0[3] == 0x03 && $0[4] == 0x0C }
            }
        }
        #expect(answered != nil, "the world stood still while one host did not read")
        // Nor does the server's flush wait for it past its deadline.
        #expect(await server.flush(within: .milliseconds(200)) == false)
        withExtendedLifetime(client) {}
    }

    @Test func aHostTooFarBehindIsDropped() async throws {
        let world = SimWorld(scenario: SimScenario(devices: []), clock: ContinuousClock())
        try await world.start()
        defer { world.stop() }
        let server = try SimH4Server(world: world, listen: Self.endpoint(), backlogLimit: 64 << 10)
        server.run()
        defer { server.close() }
        let client = try Client(server.endpoint)
        // The server shuts the socket once 64 KB wait for the host (the write may fail for
        // that); the host, reading only then, gets what was written before and the end, short
        // of the 390 KB of answers.
        let flood = Self.readAddressCommands(Self.floodCommands)
        _ = await offPool { client.write(flood) }
        let shutDown = await offPool { waitOnThisThread(for: .seconds(10)) { client.serverShutDown } }
        #expect(shutDown != nil, "the server kept a host 64 KB behind")
        let received = await offPool { client.readToEnd() }
        #expect(received.ended)
        #expect(received.bytes < Self.floodCommands * 13)
    }
}
