#if canImport(Glibc)
import Glibc
#endif

/// Thin wrappers over read(2)/write(2) that retry on EINTR and report errno.
enum FileIO {
    static func openForReading(_ path: String) throws(BtsnoopError) -> Int32 {
        let fd = retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        return fd
    }

    static func create(_ path: String) throws(BtsnoopError) -> Int32 {
        let fd = retrying { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        return fd
    }

    /// Reads at most `buffer.count` bytes; 0 at end of file.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(BtsnoopError) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        let n = retrying { Glibc.read(fd, base, buffer.count) }
        guard n >= 0 else { throw .readFailed(errno: errno) }
        return n
    }

    /// Writes all of `bytes`, completing partial writes.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(BtsnoopError) {
        var done = 0
        while done < bytes.count {
            guard let base = bytes.baseAddress else { return }
            let n = retrying { Glibc.write(fd, base + done, bytes.count - done) }
            guard n > 0 else { throw .writeFailed(errno: n < 0 ? errno : EIO) }
            done += n
        }
    }

    private static func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}

/// `Array.withUnsafeBytes` keeping the typed error (the standard one rethrows `any Error`).
func withBytes<R>(
    of array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(BtsnoopError) -> R
) throws(BtsnoopError) -> R {
    try array.withUnsafeBytes { view in Result { () throws(BtsnoopError) in try body(view) } }.get()
}
