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
/// time; each new host gets a fresh controller in the same world. What goes to the host is
/// written from a thread of its own: a host that reads slowly holds up that thread, never the
/// world; one that falls `backlogLimit` bytes behind is dropped (its socket shut down), as a host
/// that stops reading its UART loses its controller.
package final class SimH4Server: Sendable {
    /// Bytes that may wait for a host by default: seconds of a busy world's events and data.
    package static let defaultBacklogLimit = 4 << 20

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
    /// Bytes that may wait for the host before it is dropped.
    private let backlogLimit: Int
    /// The host being served now, if any: its controller and the writer to its socket.
    private let serving = Lock<(controller: VirtualController, writer: SocketWriter)?>(nil)
    /// Resolved when accepting a host failed other than by `close`: the server serves no more.
    private let acceptFailed = Waiter<Errno>()

    package init(world: SimWorld, listen: Endpoint, backlogLimit: Int = SimH4Server.defaultBacklogLimit) throws {
        self.world = world
        self.backlogLimit = backlogLimit
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
    /// to its socket (or the host is gone), or once `limit` has passed (a host that does not
    /// read): what a server ending its run sends last (the links' Disconnection Complete after
    /// `world.stop()`) is not cut off by the process exiting. Returns whether it all went.
    @discardableResult
    package func flush(within limit: Duration = .seconds(2)) async -> Bool {
        guard let host = serving.withLock({ $0 }) else { return true }
        // Both waits end when cancelled: the first to finish decides.
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await host.controller.flush()
                return (try? await host.writer.drained()) ?? false
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
    }

    /// Bridges one host: its H4 stream into a fresh virtual controller, the controller's packets back.
    private func serve(_ client: Int32) {
        let writer: SocketWriter
        do {
            writer = try SocketWriter(fd: client, backlogLimit: backlogLimit)
        } catch {
            Glibc.close(client)
            return
        }
        let controller = world.makeHostController()
        do { try controller.start(writer) } catch {
            writer.finish()
            Glibc.close(client)
            return
        }
        serving.withLock { $0 = (controller, writer) }
        defer { serving.withLock { if $0?.controller === controller { $0 = nil } } }
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
        writer.finish()
        Glibc.close(client)
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

/// Writes the controller's packets to the host's socket, in order and whole, from a
/// thread of its own: the air's thread only queues them. Up to `backlogLimit` bytes wait; past
/// that the host is dropped (the socket shut down, so that its reader ends too). The socket stays
/// the caller's to close, once `finish` has returned.
private final class SocketWriter: HCIPacketSink, Sendable {
    private let fd: Int32
    private let backlogLimit: Int
    private let state = Lock(State())
    /// Signalled for each packet queued and for the close: the writer thread waits on it (its
    /// own thread, never one of the pool's).
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled by the writer thread as it ends.
    private let ended = DispatchSemaphore(value: 0)

    private struct State {
        var queue: [[UInt8]] = []
        /// Bytes queued or being written.
        var backlog = 0
        var closed = false
        /// Callers of `drained`, resolved once nothing waits (or the writer closed): with whether
        /// everything reached the host.
        var drainWaiters: [Waiter<Bool>] = []
        /// A packet was dropped or left unwritten: the host did not get everything.
        var lost = false
    }

    init(fd: Int32, backlogLimit: Int) throws {
        self.fd = fd
        self.backlogLimit = backlogLimit
        try startDetachedThread { [self] in writeUntilClosed() }
    }

    func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
        let packet = [type.rawValue] + Array(payload)
        state.withLock { s in
            guard !s.closed else { return }
            guard s.backlog + packet.count <= backlogLimit else {
                // The host fell too far behind: its read ends, and `serve` closes its controller.
                // Under the lock, where the socket is still open: `serve` closes it only after
                // `finish`, which takes the lock first.
                s.lost = true
                closeLocked(&s)
                return
            }
            s.queue.append(packet)
            s.backlog += packet.count
        }
        wake.signal()
    }

    func transportDidClose(_ error: TransportError?) {}

    /// Returns once every packet queued so far has been written, or the writer closed: whether
    /// the host got every packet. Throws `CancellationError` when the caller is cancelled first.
    func drained() async throws -> Bool {
        let waiter = Waiter<Bool>()
        let now = state.withLock { s -> Bool? in
            guard s.backlog > 0, !s.closed else { return !s.lost && s.backlog == 0 }
            s.drainWaiters.append(waiter)
            return nil
        }
        if let now { return now }
        return try await waiter.wait()
    }

    /// Stops writing (what still waits is dropped, a write under way ends) and waits for the
    /// writer thread to end. Blocks: for the serving thread, never one of the pool's.
    func finish() {
        state.withLock { closeLocked(&$0) }
        wake.signal()
        ended.wait()
    }

    private func closeLocked(_ s: inout State) {
        guard !s.closed else { return }
        s.closed = true
        if s.backlog > 0 { s.lost = true }
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    private func writeUntilClosed() {
        while true {
            wake.wait()
            let (packets, closed) = state.withLock { s in
                defer { s.queue = [] }
                return (s.queue, s.closed)
            }
            if closed { break }
            var written = 0
            var failed = false
            for packet in packets {
                guard sendAll(packet) else {
                    failed = true
                    break
                }
                written += packet.count
            }
            let (drained, delivered) = state.withLock { s -> ([Waiter<Bool>], Bool) in
                s.backlog -= written
                // A host gone meanwhile reads no more: nothing to tell it.
                if failed { closeLocked(&s) }
                guard s.backlog == 0 || s.closed else { return ([], false) }
                defer { s.drainWaiters = [] }
                return (s.drainWaiters, !s.lost && s.backlog == 0)
            }
            for waiter in drained { _ = waiter.succeed(delivered) }
        }
        let waiters = state.withLock { s in
            if s.backlog > 0 { s.lost = true }
            s.queue = []
            s.backlog = 0
            defer { s.drainWaiters = [] }
            return s.drainWaiters
        }
        for waiter in waiters { _ = waiter.succeed(false) }
        ended.signal()
    }

    /// Writes all of `packet`, without SIGPIPE for a host that has gone; false when it cannot.
    private func sendAll(_ packet: [UInt8]) -> Bool {
        packet.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += sent
            }
            return true
        }
    }
}
