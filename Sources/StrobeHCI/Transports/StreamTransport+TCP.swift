#if canImport(Glibc)
import Glibc
#endif

extension StreamTransport {
    /// Connects to an H4-over-TCP endpoint (`tcp:HOST:PORT`), such as a Bumble controller.
    /// Every address `getaddrinfo` gives is tried in turn. Nagle is turned off: HCI traffic is
    /// small packets that must not wait for each other.
    package static func connectTCP(
        host: String, port: Int, limits: H4Deframer.Limits = H4Deframer.Limits(),
        readCoalescing: ReadCoalescing = .off
    ) throws(TransportError) -> StreamTransport {
        let endpoint = host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        guard (1...65535).contains(port) else {
            throw .cannotOpen(endpoint: endpoint, reason: "port \(port) is outside 1...65535")
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0 else {
            throw .cannotOpen(endpoint: endpoint, reason: "getaddrinfo: \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }

        var lastError: TransportError = .cannotOpen(endpoint: endpoint, reason: "no address for \(host)")
        var entry = list
        while let address = entry?.pointee {
            entry = address.ai_next
            let fd = socket(address.ai_family, address.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), address.ai_protocol)
            guard fd >= 0 else {
                lastError = .cannotOpen(endpoint, call: "socket", errno: errno)
                continue
            }
            guard connect(fd, address.ai_addr, address.ai_addrlen) == 0 else {
                lastError = .cannotOpen(endpoint, call: "connect", errno: errno)
                _ = Glibc.close(fd)
                continue
            }
            var one: Int32 = 1
            guard setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                lastError = .cannotOpen(endpoint, call: "setsockopt(TCP_NODELAY)", errno: errno)
                _ = Glibc.close(fd)
                continue
            }
            return try StreamTransport(fileDescriptor: fd, name: endpoint, limits: limits, readCoalescing: readCoalescing)
        }
        throw lastError
    }
}
