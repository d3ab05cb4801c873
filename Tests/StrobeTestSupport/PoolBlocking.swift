import Foundation
import StrobeBase
import Synchronization

/// What `withThePoolBlocked` saw.
package struct PoolBlockedObservation<T: Sendable>: Sendable {
    /// What `observe` returned, run while every thread of the pool was held.
    package var value: T
    /// Whether every thread of the pool was held for the whole of `observe`: a task started once
    /// they were all parked had not run when `observe` ended.
    package var poolWasBlocked: Bool
}

/// Parks one task on every thread of Swift's cooperative pool (one per core), then runs
/// `observe` on a thread of its own (run as a transport's reader is, raised where
/// permitted) while they are parked, then lets them go. For tests that
/// show protocol progress needs no thread of the app's pool: `observe` waits (with a deadline)
/// for what the host must do on its own thread.
///
/// Blocking the pool is the point here, and it is bounded: the parked tasks are let go when
/// `observe` returns, or after `parkingLimit` when the pool is too busy to park them all. One
/// call at a time in the process: two at once would each hold part of the pool and wait for the
/// rest. Throws `CancellationError` when the caller is cancelled while it waits for its turn.
package func withThePoolBlocked<T: Sendable>(
    parkingLimit: Duration = .seconds(30), _ observe: @escaping @Sendable () -> T
) async throws -> PoolBlockedObservation<T> {
    try await poolBlockingTurns.run { await blockThePool(parkingLimit: parkingLimit, observe) }
}

/// Whose turn it is to block the pool.
private let poolBlockingTurns = AsyncSerialGate()

private func blockThePool<T: Sendable>(
    parkingLimit: Duration, _ observe: @escaping @Sendable () -> T
) async -> PoolBlockedObservation<T> {
    let width = ProcessInfo.processInfo.activeProcessorCount
    let parked = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let probe = ProbeFlag()
    for _ in 0..<width {
        Task.detached {
            parked.signal()
            release.wait()
        }
    }
    return await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            // It delivers the peer's packets, as a transport's reader does: run as one is.
            ThreadScheduling.raisedWherePermitted.applyToCurrentThread()
            var allParked = true
            let (seconds, attoseconds) = parkingLimit.components
            let limit = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            for _ in 0..<width where parked.wait(timeout: limit) == .timedOut {
                allParked = false
            }
            // A task that can run only on a free pool thread: it must not have run by the end.
            Task.detached { probe.ran.store(true, ordering: .relaxed) }
            let value = observe()
            let blocked = allParked && !probe.ran.load(ordering: .relaxed)
            for _ in 0..<width { release.signal() }
            continuation.resume(returning: PoolBlockedObservation(value: value, poolWasBlocked: blocked))
        }
    }
}

private final class ProbeFlag: Sendable {
    let ran = Atomic<Bool>(false)
}

/// Waits on the caller's thread (never a pool thread: for `withThePoolBlocked`'s `observe`)
/// until `condition` holds, checking every millisecond, for at most `limit`. Returns how long it
/// took, or nil when `limit` passed first.
package func waitOnThisThread(for limit: Duration, until condition: () -> Bool) -> Duration? {
    let clock = ContinuousClock()
    let start = clock.now
    while true {
        if condition() { return start.duration(to: clock.now) }
        if start.duration(to: clock.now) > limit { return nil }
        usleep(1000)
    }
}

/// An executor on a thread of its own, for the app's side of a test while the pool is blocked:
/// `Task(executorPreference: executor) { ... }` runs there, and resumes there after each wait.
/// The thread is a latency-sensitive app's (a shutter's): raised where permitted.
package final class ThreadOfItsOwnExecutor: TaskExecutor, @unchecked Sendable {
    /// Guards `jobs` and `stopped` (`@unchecked`: the thread and the enqueuers meet here).
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    package init() {
        Thread.detachNewThread { [self] in run() }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs enqueued so far have run.
    package func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        ThreadScheduling.raisedWherePermitted.applyToCurrentThread()
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
