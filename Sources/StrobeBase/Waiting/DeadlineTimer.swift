import Synchronization

/// One timer per owner, driven by the owner's state machine: after each step the owner passes
/// the machine's earliest deadline to `schedule`, and when that time comes the `onFire` handler gets
/// the time, so the owner can feed it to the machine. No deadline at all stops it.
///
/// The timer is an entry in the deadlines of whatever keeps time for the owner, never a task of
/// its own:
/// - on a `HostLoop` with a thread (the real clock), an entry in the loop's `DeadlineSet`, its
///   handler called on the loop's thread: it fires while every thread of the app's pool is busy;
/// - on a `VirtualClock` (tests), an entry in the clock's timers, its handler posted to the clock's
///   scheduler when time moves past it, in one order with every sleep on the clock.
/// Only on another clock (or when a loop's thread could not start) is it one sleeping task at a
/// time; there a deadline that moves later leaves the task as it is (it fires early, finds nothing
/// due, and is scheduled again).
///
/// Times are durations on the timer's `ElapsedClock` (`now`).
package final class DeadlineTimer: Sendable {
    private let clock: ElapsedClock
    private let entry: Entry
    private let fire = Lock<(@Sendable (Duration) -> Void)?>(nil)
    private let state = Lock(State())

    private enum Entry: Sendable {
        /// An entry of the loop's deadlines (the loop kept alive by the timer).
        case loop(HostLoop, UInt64)
        /// A timer of the virtual clock, and the instant the timer's durations count from.
        case virtual(VirtualClock, origin: VirtualClock.Instant, UInt64)
        /// A sleeping task at a time.
        case tasks
    }

    private struct State {
        var armedAt: Duration?
        var task: Task<Void, Never>?
        var generation: UInt64 = 0
        var stopped = false
    }

    /// A timer of `loop`: an entry of its deadlines when it has a thread, of its virtual clock's
    /// timers on one. It calls nothing until `onFire` names what to call.
    package init(loop: HostLoop) {
        clock = loop.clock
        if let core = loop.core {
            entry = .loop(loop, core.register())
        } else {
            entry = Self.entry(on: loop.clock)
        }
    }

    /// A timer on `clock`, from now.
    package init(clock: ElapsedClock) {
        self.clock = clock
        entry = Self.entry(on: clock)
    }

    package convenience init<C: Clock>(clock: C) where C.Duration == Duration {
        self.init(clock: ElapsedClock(clock))
    }

    /// An owner's timer: on the host's `loop` when the owner keeps time on the real clock and the
    /// loop has a thread, else on the owner's `clock` (a `VirtualClock` in tests).
    package convenience init(clock: any Clock<Duration>, loop: HostLoop?) {
        if let loop, loop.hasThread, clock is ContinuousClock {
            self.init(loop: loop)
        } else {
            self.init(clock: ElapsedClock(clock))
        }
    }

    private static func entry(on clock: ElapsedClock) -> Entry {
        guard let virtual = clock.virtual else { return .tasks }
        return .virtual(virtual.clock, origin: virtual.origin, virtual.clock.registerTimer())
    }

    /// What to call, with the time, when a scheduled deadline comes: set once the owner exists
    /// (it holds the timer, so it is captured weakly there).
    package func onFire(_ handler: @escaping @Sendable (Duration) -> Void) {
        switch entry {
        case .loop(let loop, let id):
            loop.core?.setHandler(id, handler)
        case .virtual(let virtual, _, let id):
            virtual.setTimerHandler(id) { [clock] in handler(clock.now) }
        case .tasks:
            fire.withLock { $0 = handler }
        }
    }

    /// Now, as a duration since the timer was made.
    package var now: Duration { clock.now }

    /// Makes the timer fire at `deadline` (the owner's earliest; a timer of tasks keeps an
    /// earlier one and fires early); `nil` (nothing left to wait for) stops it until the next.
    package func schedule(_ deadline: Duration?) {
        switch entry {
        case .loop(let loop, let id):
            // Under the lock, so that a stop in between is not undone.
            state.withLock { state in
                guard !state.stopped else { return }
                loop.core?.schedule(id, at: deadline)
            }
        case .virtual(let virtual, let origin, let id):
            state.withLock { state in
                guard !state.stopped else { return }
                virtual.setTimer(id, at: deadline.map { origin.advanced(by: $0) })
            }
        case .tasks:
            scheduleTask(deadline)
        }
    }

    private func scheduleTask(_ deadline: Duration?) {
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
            state.task = Task(executorPreference: clock.scheduler) { [weak self, clock] in
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

    /// Stops for good: `fire` is never called again.
    package func stop() {
        switch entry {
        case .loop(let loop, let id):
            state.withLock { state in
                state.stopped = true
                loop.core?.remove(id)
            }
        case .virtual(let virtual, _, let id):
            state.withLock { state in
                state.stopped = true
                virtual.removeTimer(id)
            }
        case .tasks:
            fire.withLock { $0 = nil }
            let task = state.withLock { state -> Task<Void, Never>? in
                state.stopped = true
                state.armedAt = nil
                defer { state.task = nil }
                return state.task
            }
            task?.cancel()
        }
    }

    deinit {
        switch entry {
        case .loop(let loop, let id): loop.core?.remove(id)
        case .virtual(let virtual, _, let id): virtual.removeTimer(id)
        case .tasks: state.withLock { $0.task?.cancel() }
        }
    }
}
