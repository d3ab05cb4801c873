#if canImport(Glibc)
import Glibc
#endif
import StrobeHCI
import Synchronization
import SystemPackage

/// A UDP socket that may broadcast, with a reader thread handing each datagram to `receive`.
/// The thread wakes every 100 ms to see whether the socket was closed, and closes the
/// descriptor itself on the way out, so no read races a reused descriptor.
final class UDPSocket: Sendable {
    private let descriptor: Int32
    /// Shared with the reader thread, which outlives nothing but needs the flag.
    private final class Flag: Sendable {
        let closed = Atomic<Bool>(false)
    }

    private let flag = Flag()

    init(receive: @escaping @Sendable ([UInt8], UDPEndpoint) -> Void) throws(LightsError) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw .socket(call: "socket", errno: errno) }
        var on: Int32 = 1
        var wake = timeval(tv_sec: 0, tv_usec: 100_000)
        var any = sockaddr_in()
        any.sin_family = sa_family_t(AF_INET)
        let failed: String? =
            if setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &on, socklen_t(MemoryLayout<Int32>.size)) != 0 { "setsockopt(SO_BROADCAST)" }
            else if setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wake, socklen_t(MemoryLayout<timeval>.size)) != 0 { "setsockopt(SO_RCVTIMEO)" }
            else if withUnsafePointer(to: &any, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }) != 0 { "bind" }
            else { nil }
        if let failed {
            let error = errno
            Glibc.close(fd)
            throw .socket(call: failed, errno: error)
        }
        descriptor = fd
        let flag = self.flag
        do {
            try spawnDetachedThread {
                var buffer = [UInt8](repeating: 0, count: 2048)
                while !flag.closed.load(ordering: .acquiring) {
                    var from = sockaddr_in()
                    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                    let count: Int
                    do throws(Errno) {
                        count = try retryingOnInterrupt {
                            buffer.withUnsafeMutableBytes { raw in
                                withUnsafeMutablePointer(to: &from) {
                                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, raw.baseAddress, raw.count, 0, $0, &length) }
                                }
                            }
                        }
                    } catch {
                        if error == .wouldBlock { continue }
                        break
                    }
                    receive(Array(buffer[..<count]), UDPEndpoint(from))
                }
                Glibc.close(fd)
            }
        } catch {
            Glibc.close(fd)
            throw .socket(call: "pthread_create", errno: 0)
        }
    }

    func send(_ bytes: [UInt8], to endpoint: UDPEndpoint) throws(LightsError) {
        guard !flag.closed.load(ordering: .acquiring) else { throw .socket(call: "sendto on a closed socket", errno: EBADF) }
        var address = endpoint.socketAddress
        let sent = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard sent == bytes.count else { throw .socket(call: "sendto \(endpoint)", errno: errno) }
    }

    /// The reader stops within 100 ms and closes the descriptor.
    func close() {
        flag.closed.store(true, ordering: .releasing)
    }

    deinit { close() }
}
