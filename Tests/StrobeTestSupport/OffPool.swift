import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs blocking work (waiting for a child process or a thread, reading a pipe or a socket to
/// its end) on a thread of its own and resumes when it is done, so that it never holds one of
/// the few threads of Swift's cooperative pool: tests run in parallel, and a pool of two threads
/// blocked on pipes would stall every other test. The one way tests wait on blocking calls.
package func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try work() })
        }
    }
}

/// `offPool` for work that cannot throw.
package func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(returning: work())
        }
    }
}

extension Process {
    /// SIGKILL when it still runs: a test's child may be handed SIGTERM blocked, and the
    /// fixtures keep nothing worth a graceful stop.
    package func kill() {
        if isRunning { Glibc.kill(processIdentifier, SIGKILL) }
    }

    /// Waits for it to exit, off the pool, and returns its status.
    package func exitStatus() async -> Int32 {
        await offPool { [self] in
            waitUntilExit()
            return terminationStatus
        }
    }

    /// Kills it and waits for it, off the test's pool.
    package func killAndWait() async {
        kill()
        _ = await exitStatus()
    }

    /// SIGTERM, then SIGKILL if it has not exited within `grace`; waits for it off the pool.
    package func stop(grace: Duration = .seconds(10)) async {
        guard isRunning else { return await killAndWait() }
        terminate()
        let exited = Task { _ = await exitStatus() }
        let killer = Task {
            try await Task.sleep(for: grace)
            kill()
        }
        await exited.value
        killer.cancel()
    }
}
