#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SystemPackage

/// The thread of Strobe's own that a host's protocol work runs on, so that none of it waits for a
/// thread of the app's cooperative pool (which belongs to the app, one thread per core).
///
/// It owns the host's deadlines on the real clock: each `DeadlineTimer` made on it is one entry
/// in the loop's `DeadlineSet`, and the loop's thread sleeps in `poll` until the earliest (or
/// until posted work wakes it through a pipe), then calls the due timers' handlers itself.
/// Handlers and posted work run one at a time, in order, and must not block.
///
/// On a `VirtualClock` (in tests, which only the virtual-time driver moves) the loop has no
/// thread: its work and its tasks go through the clock's `VirtualScheduler`, in one order with
/// every other host of the run, and its deadlines are timers of the clock (no task sleeps for
/// them).
package final class HostLoop: Sendable {
    /// The time line of the loop's deadlines.
    package let clock: ElapsedClock
    /// The thread's side; nil without a thread.
    let core: LoopCore?
    /// Runs a task's jobs on the loop's thread (`Task(executorPreference:)`); without a thread,
    /// the virtual clock's scheduler, or nil (tasks run where they would anyway).
    package let executor: (any TaskExecutor)?

    /// A loop timing on `clock`: with a thread of its own, run as `scheduling` asks, when `clock`
    /// is the real continuous clock (and a thread can be started), without one otherwise.
    package init(clock: ElapsedClock, scheduling: ThreadScheduling = .normal) {
        self.clock = clock
        core = clock.isContinuous ? LoopCore.start(clock: clock, scheduling: scheduling) : nil
        executor = core.map { LoopExecutor(core: $0) } ?? clock.scheduler
    }

    package convenience init<C: Clock>(clock: C, scheduling: ThreadScheduling = .normal) where C.Duration == Duration {
        self.init(clock: ElapsedClock(clock), scheduling: scheduling)
    }

    deinit {
        core?.stop()
    }

    /// Where a task of this host that must not hold the loop's thread runs (the app's delegate, a
    /// kit's follow-up): the virtual clock's scheduler, else nil (the app's pool).
    package var offLoopExecutor: (any TaskExecutor)? { clock.scheduler }

    /// Whether the loop has a thread of its own (it runs on the real clock).
    package var hasThread: Bool { core != nil }

    /// Whether the caller runs on the loop's thread.
    package var inLoop: Bool { core?.inLoop ?? false }

    /// Runs `work` on the loop's thread, after everything posted before it; without a thread,
    /// through the virtual clock's scheduler, or in a task.
    package func post(_ work: @escaping @Sendable () -> Void) {
        if let core {
            core.post(work)
        } else if let scheduler = clock.scheduler {
            scheduler.post(work)
        } else {
            Task { work() }
        }
    }
}

/// The loop's state, shared by the `HostLoop` and its thread (which keeps it alive while it
/// runs): posted work, deadlines and their handlers, under one lock that the thread and the
/// posting threads meet at by design.
final class LoopCore: Sendable {
    let clock: ElapsedClock
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let state = Lock(State())
    /// The loop thread's `pthread_self`, for `inLoop`.
    private let thread = Atomic<UInt>(0)

    private struct State {
        var deadlines = DeadlineSet<UInt64>()
        var handlers: [UInt64: @Sendable (Duration) -> Void] = [:]
        var posted: [Posted] = []
        var nextID: UInt64 = 0
        /// The thread is in `poll` (or about to be): a change it must see needs a wake-up.
        var sleeping = false
        /// What it sleeps until; nil: until woken.
        var sleepsUntil: Duration?
        /// A wake-up byte is in the pipe: one is enough.
        var woken = false
        var stopped = false
    }

    /// What the thread runs next, in the order it came: posted work, or a job of a task that
    /// prefers the loop's executor.
    private enum Posted: Sendable {
        case work(@Sendable () -> Void)
        case job(UnownedJob, LoopExecutor)

        func run() {
            switch self {
            case .work(let work): work()
            case .job(let job, let executor): job.runSynchronously(on: executor.asUnownedTaskExecutor())
            }
        }
    }

    private init(clock: ElapsedClock, wakeRead: Int32, wakeWrite: Int32) {
        self.clock = clock
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
    }

    deinit {
        _ = Glibc.close(wakeRead)
        _ = Glibc.close(wakeWrite)
    }

    /// A core with its thread running, or nil when the pipe or the thread cannot be made (the
    /// loop then works without a thread).
    static func start(clock: ElapsedClock, scheduling: ThreadScheduling) -> LoopCore? {
        guard let ends = try? FileDescriptor.pipe(options: [.closeOnExec]) else { return nil }
        let core = LoopCore(clock: clock, wakeRead: ends.readEnd.rawValue, wakeWrite: ends.writeEnd.rawValue)
        do {
            // The thread keeps the core alive while it runs.
            try startDetachedThread {
                scheduling.applyToCurrentThread()
                core.run()
            }
        } catch {
            return nil
        }
        return core
    }

    var inLoop: Bool { thread.load(ordering: .relaxed) == UInt(pthread_self()) }

    // MARK: Entries

    /// A new deadline entry, with no deadline and no handler yet.
    func register() -> UInt64 {
        state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
    }

    func setHandler(_ id: UInt64, _ handler: @escaping @Sendable (Duration) -> Void) {
        state.withLock { $0.handlers[id] = handler }
    }

    /// Sets `id`'s deadline (nil clears it), waking the thread when it sleeps past it.
    func schedule(_ id: UInt64, at deadline: Duration?) {
        let wake = state.withLock { s -> Bool in
            guard !s.stopped else { return false }
            guard let deadline else {
                s.deadlines.clear(id)
                return false
            }
            s.deadlines.set(id, at: deadline)
            guard s.sleeping, !s.woken else { return false }
            if let until = s.sleepsUntil, until <= deadline { return false }
            s.woken = true
            return true
        }
        if wake { self.wake() }
    }

    /// Takes `id` out: no deadline, no handler.
    func remove(_ id: UInt64) {
        // Dropped after the lock: what it captured may end, and take this lock on its way.
        let handler = state.withLock { s in
            s.deadlines.clear(id)
            return s.handlers.removeValue(forKey: id)
        }
        _ = handler
    }

    func post(_ work: @escaping @Sendable () -> Void) {
        _ = post(.work(work))
    }

    /// Queues a task's job; false once the loop has stopped (it will not run here).
    func post(job: UnownedJob, on executor: LoopExecutor) -> Bool {
        post(.job(job, executor))
    }

    private func post(_ item: Posted) -> Bool {
        let (queued, wake) = state.withLock { s -> (Bool, Bool) in
            guard !s.stopped else { return (false, false) }
            s.posted.append(item)
            guard s.sleeping, !s.woken else { return (true, false) }
            s.woken = true
            return (true, true)
        }
        if wake { self.wake() }
        return queued
    }

    /// Ends the thread at its next turn; nothing more runs on it.
    func stop() {
        let (wake, dropped) = state.withLock { s -> (Bool, ([Posted], [UInt64: @Sendable (Duration) -> Void])) in
            s.stopped = true
            let dropped = (s.posted, s.handlers)
            s.posted = []
            s.handlers = [:]
            s.deadlines.removeAll()
            guard s.sleeping, !s.woken else { return (false, dropped) }
            s.woken = true
            return (true, dropped)
        }
        // Dropped after the lock, as in `remove`; a task's jobs still run, elsewhere.
        for case .job(let job, _) in dropped.0 { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        _ = dropped
        if wake { self.wake() }
    }

    private func wake() {
        var one: UInt8 = 1
        _ = Glibc.write(wakeWrite, &one, 1)
    }

    // MARK: The thread

    private func run() {
        thread.store(UInt(pthread_self()), ordering: .relaxed)
        var work: [Posted] = []
        var due: [UInt64] = []
        while true {
            var now = clock.now
            let turn = state.withLock { s -> (stopped: Bool, sleepsUntil: Duration?) in
                if s.stopped { return (true, nil) }
                swap(&work, &s.posted)
                due = s.deadlines.expire(now: now)
                s.sleeping = work.isEmpty && due.isEmpty
                s.sleepsUntil = s.deadlines.next
                return (false, s.sleepsUntil)
            }
            if turn.stopped { return }
            if !work.isEmpty || !due.isEmpty {
                for item in work { item.run() }
                // Each handler is looked up just before its call: one stopped earlier in this
                // turn (by posted work or another handler) is not called.
                for id in due {
                    if let handler = state.withLock({ $0.stopped ? nil : $0.handlers[id] }) { handler(now) }
                }
                work.removeAll(keepingCapacity: true)
                due.removeAll(keepingCapacity: true)
                continue
            }
            now = clock.now
            let timeout: Int32
            if let until = turn.sleepsUntil {
                // Whole milliseconds, rounded up: a timer never fires before its deadline.
                let left = until - now
                if left <= .zero {
                    timeout = 0
                } else if left > .seconds(3600) {
                    // At most an hour at a time: the loop looks again, and sleeps on.
                    timeout = 3_600_000
                } else {
                    timeout = Int32((left.nanosecondsRoundedUp + 999_999) / 1_000_000)
                }
            } else {
                timeout = -1
            }
            var ready = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
            let count = poll(&ready, 1, timeout)
            state.withLock { s in
                s.sleeping = false
                s.woken = false
            }
            // Read only what has arrived (the read end blocks): a byte still on its way wakes the
            // next poll at once, and that turn reads it.
            if count > 0 && ready.revents & Int16(POLLIN) != 0 {
                var bytes: (UInt64, UInt64) = (0, 0)
                _ = withUnsafeMutableBytes(of: &bytes) { Glibc.read(wakeRead, $0.baseAddress, $0.count) }
            }
        }
    }
}

extension Duration {
    /// Whole nanoseconds, rounded up (a deadline is never reached early).
    var nanosecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        let nanoseconds = seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
        return attoseconds % 1_000_000_000 > 0 ? nanoseconds &+ 1 : nanoseconds
    }
}
