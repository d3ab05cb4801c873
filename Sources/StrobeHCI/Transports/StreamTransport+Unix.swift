#if canImport(Glibc)
import Glibc
#endif

extension StreamTransport {
    /// Connects to an H4 endpoint on a unix stream socket (`unix:PATH`). A path that starts with
    /// `@` names a socket in Linux's abstract namespace (no file; `@name` as `ss -x` prints it).
    package static func connectUnix(
        path: String, limits: H4Deframer.Limits = H4Deframer.Limits(),
        readCoalescing: ReadCoalescing = .off
    ) throws(TransportError) -> StreamTransport {
        let endpoint = "unix:\(path)"
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        let isAbstract = path.hasPrefix("@")
        // Abstract names start with a NUL and are not terminated; paths need room for their NUL.
        let bytes = isAbstract ? [0] + Array(path.utf8.dropFirst()) : Array(path.utf8)
        guard !path.isEmpty, bytes.count < capacity || (isAbstract && bytes.count <= capacity) else {
            throw .cannotOpen(endpoint: endpoint, reason: "a unix socket path holds at most \(capacity - 1) bytes")
        }
        guard isAbstract || !bytes.contains(0) else {
            throw .cannotOpen(endpoint: endpoint, reason: "the path contains a NUL byte")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(pathOffset + bytes.count + (isAbstract ? 0 : 1))

        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .cannotOpen(endpoint, call: "socket", errno: errno) }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard rc == 0 else {
            let code = errno
            _ = Glibc.close(fd)
            throw .cannotOpen(endpoint, call: "connect", errno: code)
        }
        return try StreamTransport(fileDescriptor: fd, name: endpoint, limits: limits, readCoalescing: readCoalescing)
    }
}
