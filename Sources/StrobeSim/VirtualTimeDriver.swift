#if canImport(Glibc)
import Glibc
#endif
import StrobeHCI
import StrobeBase
import Synchronization

/// Runs asynchronous work the way a discrete-event simulator does: every job of the run on one
/// thread, one at a time in the order it was enqueued, and the virtual clock moved to the next
/// timer only once no job is left to run and no work handed to a thread of its own
/// (`OffThreadWork`, the run's own) is still under way. A world on a `VirtualClock` then goes through minutes of
/// air time in milliseconds, and the same seed gives the same run, packet for packet.
///
/// The run's jobs are those of its clock's executor (`VirtualClock.executor`): the body and its
/// child tasks, and every host loop, timer and simulated device on the clock. Nothing of the
/// process is taken over, so runs on different clocks go on side by side in one process, beside
/// tests on the real clock. A task the body starts with `Task {}` runs outside the run (start it
/// with `Task(executorPreference: clock.executor)`); one that sleeps on the clock fails the run.
/// Every timer of the run must be on the virtual clock: a run left waiting on a real clock alone
/// ends as stalled.
public enum VirtualTimeDriver {
    /// Runs `body` to completion in virtual time, starting at `clock.now`. Rather than hang, it
    /// fails when the run stalls (nothing to run, no timer, `body` still waiting: `.stalled`),
    /// passes `timeLimit` of virtual time (`.timeLimitExceeded`), or had a task outside it sleep
    /// on the clock (`.escaped`); a clock is driven once (`.alreadyRunning`). A cancelled caller
    /// ends the run at the driver's next job, its body cancelled, with `CancellationError`.
    public static func run<T: Sendable>(
        clock: VirtualClock, timeLimit: Duration = .seconds(3600),
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let scheduler = clock.scheduler
        guard scheduler.beginDriving() else { throw VirtualTimeError.alreadyRunning }
        let result = Outcome<T>()
        let offThread = OffThreadWork.Counter()
        let cancelled = CancelFlag()
        // Queued until the driver's thread runs it, as everything after it.
        let task = Task(executorPreference: scheduler) {
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await OffThreadWork.$counter.withValue(offThread) { try await body() })
            } catch {
                outcome = .failure(error)
            }
            result.value.withLock { $0 = outcome }
        }
        let failure: VirtualTimeError? = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                do {
                    // The driver has a thread of its own: no thread of the app's pool waits for it.
                    try spawnDetachedThread {
                        var failure = drive(scheduler, clock: clock, offThread: offThread, until: clock.now.advanced(by: timeLimit),
                                            cancelled: { cancelled.value.load(ordering: .relaxed) }) {
                            result.value.withLock { $0 != nil }
                        }
                        let escapes = scheduler.endDriving()
                        // An escape is the likelier cause of any other failure: it is told first.
                        if escapes > 0 { failure = .escaped(sleeps: escapes) }
                        continuation.resume(returning: failure)
                    }
                } catch {
                    _ = scheduler.endDriving()
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            cancelled.value.store(true, ordering: .relaxed)
            task.cancel()
        }
        if let failure { throw failure }
        if result.value.withLock({ $0 == nil }) { throw CancellationError() }
        return try result.value.withLock { $0! }.get()
    }

    /// Runs `body` in virtual time on a new clock starting at zero.
    public static func run<T: Sendable>(
        timeLimit: Duration = .seconds(3600), _ body: @escaping @Sendable (VirtualClock) async throws -> T
    ) async throws -> T {
        let clock = VirtualClock()
        return try await run(clock: clock, timeLimit: timeLimit) { try await body(clock) }
    }

    /// The driver loop: runs jobs while there are any, then moves time to the earliest timer.
    private static func drive(
        _ scheduler: VirtualScheduler, clock: VirtualClock, offThread counter: OffThreadWork.Counter,
        until limit: VirtualClock.Instant, cancelled: () -> Bool, finished: () -> Bool
    ) -> VirtualTimeError? {
        while true {
            if cancelled() { return nil }
            // Read before looking for a job: work that had finished by now enqueued its job first.
            let offThread = counter.pending.load(ordering: .sequentiallyConsistent)
            // Work posted to a loop runs in no task: it counts in the run's counter too.
            if OffThreadWork.$counter.withValue(counter, operation: { scheduler.runNext() }) { continue }
            if finished() { return nil }
            if offThread > 0 {
                // Real time passes off the clock; the work's job comes when it finishes.
                usleep(100)
                continue
            }
            guard let next = clock.nextDeadline else { return .stalled(at: clock.now) }
            if next > limit { return .timeLimitExceeded(at: clock.now) }
            clock.advance(to: next)
        }
    }
}

/// The caller was cancelled: the driver ends the run at its next look.
private final class CancelFlag: Sendable {
    let value = Atomic<Bool>(false)
}

/// Where the body's result waits for the driver to finish.
private final class Outcome<T: Sendable>: Sendable {
    let value = Lock<Result<T, any Error>?>(nil)
}

/// Why a virtual-time run ended before its body did.
public enum VirtualTimeError: Error, Equatable, CustomStringConvertible {
    /// No job to run and no virtual timer to wait for, yet the body had not finished: it waits
    /// for something that can never happen (or for a sleep on a real clock).
    case stalled(at: VirtualClock.Instant)
    /// The next timer lies past the run's limit.
    case timeLimitExceeded(at: VirtualClock.Instant)
    /// Another virtual-time run drives the same clock, or drove it: a clock is driven once.
    case alreadyRunning
    /// Tasks that do not run on the clock's executor slept on the clock during the run: they ran
    /// beside it, out of its order (a `Task {}` the body started, say).
    case escaped(sleeps: Int)

    /// Why the run ended, as a sentence for a user.
    public var description: String {
        switch self {
        case .stalled(let at): "virtual-time run stalled at \(at): nothing to run and no timer pending"
        case .timeLimitExceeded(let at): "virtual-time run passed its time limit at \(at)"
        case .alreadyRunning: "a virtual-time run drives or drove this clock already"
        case .escaped(let sleeps): "\(sleeps) sleeps on the virtual clock came from tasks outside the run (start them on clock.executor)"
        }
    }
}
