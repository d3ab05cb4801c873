#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StrobeHCI
import StrobeBase
import Synchronization
import SystemPackage

/// Exposes a host controller of a simulated world over H4 on a TCP or unix socket, so that another
/// host stack (Bumble, BlueZ's btproxy clients, an app under test) can drive it. One host at a
/// time; each new host gets a fresh controller in the same world.
package final class SimH4Server: Sendable {
    package enum Endpoint: Sendable, Hashable, CustomStringConvertible {
        case tcp(host: String, port: UInt16)
        case unix(path: String)

        package init?(_ text: String) {
            if text.hasPrefix("tcp:"), let colon = text.lastIndex(of: ":"), colon > text.index(text.startIndex, offsetBy: 3),
               let port = UInt16(text[text.index(after: colon)...]) {
                self = .tcp(host: String(text[text.index(text.startIndex, offsetBy: 4)..<colon]), port: port)
            } else if text.hasPrefix("unix:"), text.count > 5 {
                self = .unix(path: String(text.dropFirst(5)))
            } else {
                return nil
            }
        }

        package var description: String {
            switch self {
            case .tcp(let host, let port): "tcp:\(host):\(port)"
            case .unix(let path): "unix:\(path)"
            }
        }
    }

    package let world: SimWorld
    /// Where it listens (with the port the kernel chose when 0 was asked for).
    package let endpoint: Endpoint
    private let listener: Int32
    private let closed = Atomic<Bool>(false)
    /// The host being served now, if any.
    private let serving = Lock<VirtualController?>(nil)
    /// Resolved when accepting a host failed other than by `close`: the server serves no more.
    private let acceptFailed = Waiter<Errno>()

    package init(world: SimWorld, listen: Endpoint) throws {
        self.world = world
        let (fd, bound) = try Self.bind(listen)
        listener = fd
        endpoint = bound
    }

    /// Accepts hosts one after the other on a thread of its own until `close`, or until an
    /// accept fails (`acceptFailure()` then says why).
    package func run() {
        let thread = Thread { [self] in
            while !closed.load(ordering: .relaxed) {
                let client: Int32
                do throws(Errno) {
                    client = try retryingOnInterrupt { accept(listener, nil, nil) }
                } catch {
                    // `close` ends the accept too: that is no failure.
                    if !closed.load(ordering: .relaxed) { _ = acceptFailed.succeed(error) }
                    return
                }
                serve(client)
            }
        }
        thread.start()
    }

    /// Waits until accepting a host failed (not by `close`) and returns the errno: the server
    /// accepts no more hosts. One caller, once: a cancelled wait ends it.
    package func acceptFailure() async throws -> Errno { try await acceptFailed.wait() }

    package func close() {
        closed.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
        if case .unix(let path) = endpoint, !path.hasPrefix("@") { unlink(path) }
    }

    /// Returns once every packet the world has queued for the host being served has been written
    /// to its socket: what a server ending its run sends last (the links' Disconnection Complete
    /// after `world.stop()`) is not cut off by the process exiting.
    package func flush() async {
        await serving.withLock { $0 }?.flush()
    }

    /// Bridges one host: its H4 stream into a fresh virtual controller, the controller's packets back.
    private func serve(_ client: Int32) {
        let controller = world.makeHostController()
        let writer = SocketSink(fd: client)
        do { try controller.start(writer) } catch {
            Glibc.close(client)
            return
        }
        serving.withLock { $0 = controller }
        defer { serving.withLock { if $0 === controller { $0 = nil } } }
        var deframer = H4Deframer()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = try? buffer.withUnsafeMutableBytes { try FileDescriptor(rawValue: client).read(into: $0) }
            guard let count = read, count > 0 else { break }
            let ok: Bool = buffer.withUnsafeBytes { bytes in
                do {
                    try deframer.feed(UnsafeRawBufferPointer(rebasing: bytes[0..<count])) { type, payload in
                        try? controller.send([type.rawValue] + Array(payload))
                    }
                    return true
                } catch {
                    return false  // not H4: drop the host
                }
            }
            if !ok { break }
        }
        controller.close()
        writer.close()
    }

    private static func bind(_ endpoint: Endpoint) throws -> (Int32, Endpoint) {
        switch endpoint {
        case .tcp(let host, let port):
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw TransportError.systemCall(call: "socket", errno: errno) }
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
                Glibc.close(fd)
                throw TransportError.cannotOpen(endpoint: endpoint.description, reason: "not an IPv4 address")
            }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard result == 0, listen(fd, 4) == 0 else {
                let code = errno
                Glibc.close(fd)
                throw TransportError.cannotOpen(endpoint: endpoint.description, reason: String(cString: strerror(code)))
            }
            var bound = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            return (fd, .tcp(host: host, port: UInt16(bigEndian: bound.sin_port)))
        case .unix(let path):
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw TransportError.systemCall(call: "socket", errno: errno) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
                Glibc.close(fd)
                throw TransportError.cannotOpen(endpoint: endpoint.description, reason: "path too long")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in bytes.enumerated() { raw[index] = byte }
                if bytes.first == UInt8(ascii: "@") { raw[0] = 0 }  // Linux abstract name
            }
            if bytes.first != UInt8(ascii: "@") { unlink(path) }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == UInt8(ascii: "@") ? 0 : 1))
            let result = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) } }
            guard result == 0, listen(fd, 4) == 0 else {
                let code = errno
                Glibc.close(fd)
                throw TransportError.cannotOpen(endpoint: endpoint.description, reason: String(cString: strerror(code)))
            }
            return (fd, endpoint)
        }
    }
}

/// Writes the controller's packets to the host's socket, each H4 packet in one write.
private final class SocketSink: HCIPacketSink, Sendable {
    private let fd: Int32
    private let lock = Lock(false)

    init(fd: Int32) { self.fd = fd }

    func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
        let packet = [type.rawValue] + Array(payload)
        lock.withLock { closed in
            guard !closed else { return }
            // A host gone meanwhile reads no more: nothing to tell it.
            _ = try? FileDescriptor(rawValue: fd).writeAll(packet)
        }
    }

    func transportDidClose(_ error: TransportError?) {}

    func close() {
        lock.withLock { closed in
            guard !closed else { return }
            closed = true
            Glibc.close(fd)
        }
    }
}
