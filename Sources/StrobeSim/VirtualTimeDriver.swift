#if canImport(Glibc)
import Glibc
#endif
import StrobeHCI
import Synchronization

/// Runs a process's asynchronous work the way a discrete-event simulator does: every job on one
/// thread, one at a time in the order it was enqueued, and the virtual clock moved to the next
/// timer only once no job is left to run. A world on a `VirtualClock` then goes through minutes
/// of air time in milliseconds, and the same seed gives the same run, packet for packet.
///
/// It takes over the process's global executor (the runtime's enqueue hooks) while it runs, so it
/// belongs in a process of its own: a tool, or a test's exit-test child process. Sleeps on a real
/// clock made during the run wait in virtual time too, so nothing leaves the one thread.
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
                        try install(clock: clock)
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
                    // The hooks are off before this resumes the caller, on the real executor.
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

    /// The driver loop: runs jobs while there are any, then moves time to the earliest timer.
    private static func drive(clock: VirtualClock, until limit: VirtualClock.Instant, finished: () -> Bool) -> VirtualTimeError? {
        while true {
            if let job = scheduler.withLock({ $0.popJob() }) {
                job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
                continue
            }
            if finished() { return nil }
            let timer = scheduler.withLock { $0.timers.min { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }?.deadline }
            guard let next = [timer, clock.nextDeadline].compactMap({ $0 }).min() else {
                return .stalled(at: clock.now)
            }
            if next > limit { return .timeLimitExceeded(at: clock.now) }
            clock.advance(to: next)
            scheduler.withLock { $0.fireTimers(upTo: next) }
        }
    }
}

/// Where the body's result waits for the driver to finish.
private final class Outcome<T: Sendable>: Sendable {
    let value = Mutex<Result<T, any Error>?>(nil)
}

/// Why a virtual-time run ended before its body did.
public enum VirtualTimeError: Error, Equatable, CustomStringConvertible {
    /// No job to run and no timer to wait for, yet the body had not finished: it waits for
    /// something that can never happen.
    case stalled(at: VirtualClock.Instant)
    /// The next timer lies past the run's limit.
    case timeLimitExceeded(at: VirtualClock.Instant)
    /// Another virtual-time run holds the process's executor.
    case alreadyRunning
    /// The Swift runtime does not offer the enqueue hooks.
    case hooksUnavailable

    public var description: String {
        switch self {
        case .stalled(let at): "virtual-time run stalled at \(at): nothing to run and no timer pending"
        case .timeLimitExceeded(let at): "virtual-time run passed its time limit at \(at)"
        case .alreadyRunning: "a virtual-time run is already driving this process"
        case .hooksUnavailable: "the Swift runtime offers no global enqueue hooks"
        }
    }
}

// MARK: The runtime's enqueue hooks

private typealias EnqueueOriginal = @convention(thin) (UnownedJob) -> Void
private typealias EnqueueHook = @convention(thin) (UnownedJob, EnqueueOriginal) -> Void
private typealias DelayOriginal = @convention(thin) (UInt64, UnownedJob) -> Void
private typealias DelayHook = @convention(thin) (UInt64, UnownedJob, DelayOriginal) -> Void
private typealias DeadlineOriginal = @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob) -> Void
private typealias DeadlineHook = @convention(thin) (Int64, Int64, Int64, Int64, Int32, UnownedJob, DeadlineOriginal) -> Void

private struct Hooks: @unchecked Sendable {
    // Addresses of the runtime's hook variables, found once.
    let enqueue: UnsafeMutablePointer<EnqueueHook?>
    let delay: UnsafeMutablePointer<DelayHook?>
    let deadline: UnsafeMutablePointer<DeadlineHook?>

    static let shared: Hooks? = {
        let process = dlopen(nil, RTLD_NOW)
        guard let enqueue = dlsym(process, "swift_task_enqueueGlobal_hook"),
              let delay = dlsym(process, "swift_task_enqueueGlobalWithDelay_hook"),
              let deadline = dlsym(process, "swift_task_enqueueGlobalWithDeadline_hook") else { return nil }
        return Hooks(enqueue: enqueue.assumingMemoryBound(to: EnqueueHook?.self),
                     delay: delay.assumingMemoryBound(to: DelayHook?.self),
                     deadline: deadline.assumingMemoryBound(to: DeadlineHook?.self))
    }()
}

private struct Scheduler: @unchecked Sendable {
    struct Timer {
        var deadline: VirtualClock.Instant
        var sequence: UInt64
        var job: UnownedJob
    }

    var active = false
    var clock: VirtualClock?
    var jobs: [UnownedJob] = []
    var head = 0
    var timers: [Timer] = []
    var sequence: UInt64 = 0

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

    mutating func addTimer(after delay: Duration, _ job: UnownedJob) {
        guard let clock else { return }
        sequence += 1
        timers.append(Timer(deadline: clock.now.advanced(by: max(delay, .zero)), sequence: sequence, job: job))
    }

    mutating func fireTimers(upTo now: VirtualClock.Instant) {
        let due = timers.filter { $0.deadline <= now }.sorted { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }
        timers.removeAll { $0.deadline <= now }
        jobs.append(contentsOf: due.map(\.job))
    }
}

private let scheduler = Mutex(Scheduler())

private func install(clock: VirtualClock) throws(VirtualTimeError) {
    guard let hooks = Hooks.shared else { throw .hooksUnavailable }
    try scheduler.withLock { s throws(VirtualTimeError) in
        guard !s.active else { throw .alreadyRunning }
        s = Scheduler(active: true, clock: clock)
    }
    hooks.enqueue.pointee = { job, original in
        let taken = scheduler.withLock { s in
            if s.active { s.jobs.append(job) }
            return s.active
        }
        if !taken { original(job) }
    }
    hooks.delay.pointee = { nanoseconds, job, original in
        let taken = scheduler.withLock { s in
            if s.active { s.addTimer(after: .nanoseconds(Int64(clamping: nanoseconds)), job) }
            return s.active
        }
        if !taken { original(nanoseconds, job) }
    }
    hooks.deadline.pointee = { seconds, nanoseconds, toleranceSeconds, toleranceNanoseconds, clockID, job, original in
        // The deadline is on a real clock (0: continuous, 1: suspending); what is left of it is
        // waited in virtual time.
        var now = timespec()
        clock_gettime(clockID == 0 ? CLOCK_BOOTTIME : CLOCK_MONOTONIC, &now)
        let left = Duration.seconds(seconds - Int64(now.tv_sec)) + .nanoseconds(nanoseconds - Int64(now.tv_nsec))
        let taken = scheduler.withLock { s in
            if s.active { s.addTimer(after: left, job) }
            return s.active
        }
        if !taken { original(seconds, nanoseconds, toleranceSeconds, toleranceNanoseconds, clockID, job) }
    }
}

/// Hands what is still queued back to the real executor and takes the hooks off.
private func uninstall() {
    let (jobs, timers) = scheduler.withLock { s -> ([UnownedJob], [Scheduler.Timer]) in
        defer { s = Scheduler() }
        return (Array(s.jobs[s.head...]), s.timers)
    }
    if let hooks = Hooks.shared {
        hooks.enqueue.pointee = nil
        hooks.delay.pointee = nil
        hooks.deadline.pointee = nil
    }
    // What a run leaves behind still belongs to the process: its jobs run now, on the real
    // executor, and so do real-clock sleeps still pending (they wake early).
    for job in jobs + timers.map(\.job) {
        job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
    }
}
