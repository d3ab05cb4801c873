#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// Makes a system call that returns -1 and sets `errno` on failure, again while it fails with
/// EINTR (a signal came first); any other failure is thrown as swift-system's `Errno`. Where
/// swift-system has the call (`FileDescriptor.read`, `write`, `close`), use it instead: it
/// retries the same way. Sockets' calls (accept, recv, send, flock) it does not have.
@inlinable package func retryingOnInterrupt<Result: SignedInteger>(_ call: () -> Result) throws(Errno) -> Result {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = Errno(rawValue: errno)
        if error != .interrupted { throw error }
    }
}

/// The errno of a failure swift-system threw (its calls throw `Errno`, untyped); EIO for any
/// other error.
package func errnoValue(of error: any Error) -> Int32 {
    (error as? Errno)?.rawValue ?? EIO
}
