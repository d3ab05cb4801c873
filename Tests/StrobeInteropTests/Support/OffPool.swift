import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs blocking work (waiting for a child process, reading a pipe to its end) on a thread of
/// its own, so that it never holds one of the few threads of Swift's cooperative pool: tests
/// run in parallel, and a pool of two threads blocked on pipes would stall every other test.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try work() })
        }
    }
}

extension Process {
    /// SIGKILL when it still runs: a test's child may be handed SIGTERM blocked, and the
    /// fixtures keep nothing worth a graceful stop.
    func kill() {
        if isRunning { Glibc.kill(processIdentifier, SIGKILL) }
    }

    /// Kills it and waits for it, off the test's pool.
    func killAndWait() async {
        kill()
        try? await offPool { [self] in waitUntilExit() }
    }
}
