import Synchronization

/// One timer per owner, driven by the owner's state machine: after each step the owner passes
/// the machine's earliest deadline to `schedule`, and when that time comes the `onFire` handler gets
/// the time, so the owner can feed it to the machine. One sleeping task at a time, never one per
/// request; a deadline that moves later leaves the timer as it is (it fires early, finds nothing
/// due, and is scheduled again), and no deadline at all stops it.
///
/// Times are durations on the owner's `ElapsedClock`; the virtual clock in tests, the continuous
/// clock otherwise.
package final class DeadlineTimer: Sendable {
    private let clock: ElapsedClock
    private let fire = Lock<(@Sendable (Duration) -> Void)?>(nil)
    private let state = Lock(State())

    private struct State {
        var armedAt: Duration?
        var task: Task<Void, Never>?
        var generation: UInt64 = 0
        var stopped = false
    }

    /// A timer on `clock`, from now; it calls nothing until `onFire` names what to call.
    package init(clock: ElapsedClock) {
        self.clock = clock
    }

    package convenience init<C: Clock>(clock: C) where C.Duration == Duration {
        self.init(clock: ElapsedClock(clock))
    }

    /// What to call, with the time, when a scheduled deadline comes: set once the owner exists
    /// (it holds the timer, so it is captured weakly there).
    package func onFire(_ handler: @escaping @Sendable (Duration) -> Void) {
        fire.withLock { $0 = handler }
    }

    /// Now, as a duration since the timer was made.
    package var now: Duration { clock.now }

    /// Makes sure the timer fires at or before `deadline`; `nil` (nothing left to wait for)
    /// stops the sleeping task.
    package func schedule(_ deadline: Duration?) {
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
            state.task = Task { [weak self, clock] in
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
        state.withLock { $0.task?.cancel() }
    }
}
