import Synchronization

/// One timer per owner, driven by the owner's state machine: after each step the owner passes
/// the machine's earliest deadline to `schedule`, and when that time comes the `onFire` handler gets
/// the time, so the owner can feed it to the machine. No deadline at all stops it.
///
/// On a `HostLoop` with a thread (the real clock), the timer is one entry in the loop's deadlines
/// and its handler runs on the loop's thread: it fires while every thread of the app's pool is
/// busy. Otherwise (a `VirtualClock` in tests) it is one sleeping task at a time, never one per
/// request; there a deadline that moves later leaves the task as it is (it fires early, finds
/// nothing due, and is scheduled again).
///
/// Times are durations on the timer's `ElapsedClock` (`now`).
package final class DeadlineTimer: Sendable {
    private let clock: ElapsedClock
    /// The loop the timer is an entry of (kept alive by the timer), and its entry; nil for a timer
    /// of tasks.
    private let loop: HostLoop?
    private let entry: UInt64
    private let fire = Lock<(@Sendable (Duration) -> Void)?>(nil)
    private let state = Lock(State())

    private struct State {
        var armedAt: Duration?
        var task: Task<Void, Never>?
        var generation: UInt64 = 0
        var stopped = false
    }

    /// A timer of `loop`: an entry of its deadlines when it has a thread, a sleeping task on its
    /// clock otherwise. It calls nothing until `onFire` names what to call.
    package init(loop: HostLoop) {
        clock = loop.clock
        if let core = loop.core {
            self.loop = loop
            entry = core.register()
        } else {
            self.loop = nil
            entry = 0
        }
    }

    /// A timer of tasks on `clock`, from now.
    package init(clock: ElapsedClock) {
        self.clock = clock
        loop = nil
        entry = 0
    }

    package convenience init<C: Clock>(clock: C) where C.Duration == Duration {
        self.init(clock: ElapsedClock(clock))
    }

    /// An owner's timer: on the host's `loop` when the owner keeps time on the real clock and the
    /// loop has a thread, else a timer of tasks on the owner's `clock` (a `VirtualClock` in tests).
    package convenience init(clock: any Clock<Duration>, loop: HostLoop?) {
        if let loop, loop.hasThread, clock is ContinuousClock {
            self.init(loop: loop)
        } else {
            self.init(clock: ElapsedClock(clock))
        }
    }

    /// What to call, with the time, when a scheduled deadline comes: set once the owner exists
    /// (it holds the timer, so it is captured weakly there).
    package func onFire(_ handler: @escaping @Sendable (Duration) -> Void) {
        if let core = loop?.core {
            core.setHandler(entry, handler)
            return
        }
        fire.withLock { $0 = handler }
    }

    /// Now, as a duration since the timer was made.
    package var now: Duration { clock.now }

    /// Makes sure the timer fires at or before `deadline`; `nil` (nothing left to wait for)
    /// stops the sleeping task.
    package func schedule(_ deadline: Duration?) {
        if let core = loop?.core {
            // Under the lock, so that a stop in between is not undone.
            state.withLock { state in
                guard !state.stopped else { return }
                core.schedule(entry, at: deadline)
            }
            return
        }
        guard let deadline else {
            let idle = state.withLock { state -> Task<Void, Never>? in
                state.generation &+= 1
                state.armedAt = nil
                defer { state.task = nil }
                return state.task
            }
            idle?.cancel()
            return
        }
        let previous = state.withLock { state -> Task<Void, Never>? in
            if state.stopped { return nil }
            if let armedAt = state.armedAt, armedAt <= deadline { return nil }
            state.generation &+= 1
            let generation = state.generation
            let old = state.task
            state.armedAt = deadline
            state.task = Task(executorPreference: clock.executor) { [weak self, clock] in
                do { try await clock.sleep(until: deadline) } catch { return }
                self?.expired(generation)
            }
            return old
        }
        previous?.cancel()
    }

    private func expired(_ generation: UInt64) {
        let current = state.withLock { state -> Bool in
            guard state.generation == generation, !state.stopped else { return false }
            state.armedAt = nil
            state.task = nil
            return true
        }
        guard current, let fire = fire.withLock({ $0 }) else { return }
        fire(clock.now)
    }

    /// Stops for good: the sleeping task ends and `fire` is never called again.
    package func stop() {
        if let core = loop?.core {
            state.withLock { state in
                state.stopped = true
                core.remove(entry)
            }
            return
        }
        fire.withLock { $0 = nil }
        let task = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            state.armedAt = nil
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    deinit {
        loop?.core?.remove(entry)
        state.withLock { $0.task?.cancel() }
    }
}
