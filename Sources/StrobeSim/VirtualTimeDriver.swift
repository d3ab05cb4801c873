#if canImport(Glibc)
import Glibc
#endif
import StrobeHCI
import StrobeBase
import Synchronization

/// Runs a process's asynchronous work the way a discrete-event simulator does: every job on one
/// thread, one at a time in the order it was enqueued, and the virtual clock moved to the next
/// timer only once no job is left to run and no work handed to a thread of its own
/// (`OffThreadWork`) is still under way. (A sleep on a real clock, which the runtime wakes on a
/// thread of its own, enqueues from there into the same queue.) A world on a `VirtualClock` then goes through minutes
/// of air time in milliseconds, and the same seed gives the same run, packet for packet.
///
/// It takes over the process's global executor (the runtime's enqueue hook) while it runs, so it
/// belongs in a process of its own: a tool, or a test's exit-test child process. Every timer of
/// the run must be on the virtual clock: the runtime schedules sleeps on a real clock itself, and
/// a run left waiting on one alone ends as stalled.
public enum VirtualTimeDriver {
    /// Runs `body` to completion in virtual time, starting at `clock.now`; fails when the run
    /// stalls (nothing to run, no timer, `body` still waiting) or passes `timeLimit` of virtual
    /// time, rather than hanging.
    public static func run<T: Sendable>(
        clock: VirtualClock, timeLimit: Duration = .seconds(3600),
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let result = Outcome<T>()
        let failure: VirtualTimeError? = try await withCheckedThrowingContinuation { continuation in
            do {
                // The driver has a thread of its own, so that the caller's task is not the one blocked.
                try spawnDetachedThread {
                    do {
                        try install()
                    } catch {
                        continuation.resume(throwing: error)
                        return
                    }
                    Task.detached {
                        let outcome: Result<T, any Error>
                        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
                        result.value.withLock { $0 = outcome }
                    }
                    let failure = drive(clock: clock, until: clock.now.advanced(by: timeLimit)) {
                        result.value.withLock { $0 != nil }
                    }
                    // The hook is off before this resumes the caller, on the real executor.
                    uninstall()
                    continuation.resume(returning: failure)
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
        if let failure { throw failure }
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
    private static func drive(clock: VirtualClock, until limit: VirtualClock.Instant, finished: () -> Bool) -> VirtualTimeError? {
        while true {
            // Read before looking for a job: work that had finished by now enqueued its job first.
            let offThread = OffThreadWork.pending.load(ordering: .sequentiallyConsistent)
            if let job = scheduler.withLock({ $0.popJob() }) {
                job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
                continue
            }
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
    /// Another virtual-time run holds the process's executor.
    case alreadyRunning
    /// The Swift runtime does not offer the enqueue hook.
    case hookUnavailable

    /// Why the run ended, as a sentence for a user.
    public var description: String {
        switch self {
        case .stalled(let at): "virtual-time run stalled at \(at): nothing to run and no timer pending"
        case .timeLimitExceeded(let at): "virtual-time run passed its time limit at \(at)"
        case .alreadyRunning: "a virtual-time run is already driving this process"
        case .hookUnavailable: "the Swift runtime offers no global enqueue hook"
        }
    }
}

// MARK: The runtime's enqueue hook

private typealias EnqueueOriginal = @convention(thin) (UnownedJob) -> Void
private typealias EnqueueHook = @convention(thin) (UnownedJob, EnqueueOriginal) -> Void

/// The address of the runtime's hook variable, found once.
private struct Hook: @unchecked Sendable {
    let enqueue: UnsafeMutablePointer<EnqueueHook?>

    static let shared: Hook? = {
        guard let enqueue = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else { return nil }
        return Hook(enqueue: enqueue.assumingMemoryBound(to: EnqueueHook?.self))
    }()
}

private struct Scheduler: @unchecked Sendable {
    var active = false
    var jobs: [UnownedJob] = []
    var head = 0

    mutating func popJob() -> UnownedJob? {
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        head += 1
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        }
        return job
    }
}

/// Taken by the driver and by the enqueue hook, which also runs on Dispatch's threads (a sleep on
/// a real clock wakes there): the two meet here by design.
private let scheduler = Lock(Scheduler())

private func install() throws(VirtualTimeError) {
    guard let hook = Hook.shared else { throw .hookUnavailable }
    try scheduler.withLock { s throws(VirtualTimeError) in
        guard !s.active else { throw .alreadyRunning }
        s = Scheduler(active: true)
    }
    hook.enqueue.pointee = { job, original in
        let taken = scheduler.withLock { s in
            if s.active { s.jobs.append(job) }
            return s.active
        }
        if !taken { original(job) }
    }
}

/// Takes the hook off and runs what is still queued: what a run leaves behind still belongs to
/// the process, and what it enqueues from now on goes to the real executor.
private func uninstall() {
    let jobs = scheduler.withLock { s -> [UnownedJob] in
        defer { s = Scheduler() }
        return Array(s.jobs[s.head...])
    }
    Hook.shared?.enqueue.pointee = nil
    for job in jobs {
        job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
    }
}
