import Synchronization

/// One timer per owner, driven by the owner's state machine: after each step the owner passes
/// the machine's earliest deadline to `schedule`, and when that time comes `fire` is called with
/// the time, so the owner can feed it to the machine. One sleeping task at a time, never one per
/// request; a deadline that moves later leaves the timer as it is (it fires early, finds nothing
/// due, and is scheduled again), and no deadline at all stops it.
///
/// Times are durations since the timer was made, on the owner's clock; the virtual clock in
/// tests, the continuous clock otherwise.
package final class DeadlineTimer: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleepUntil: @Sendable (Duration) async throws -> Void
    private let fire: Mutex<(@Sendable (Duration) -> Void)?>
    private let state = Mutex(State())

    private struct State {
        var armedAt: Duration?
        var task: Task<Void, Never>?
        var generation: UInt64 = 0
        var stopped = false
    }

    package init<C: Clock>(clock: C, fire: @escaping @Sendable (Duration) -> Void) where C.Duration == Duration {
        let epoch = clock.now
        elapsed = { epoch.duration(to: clock.now) }
        sleepUntil = { deadline in try await clock.sleep(until: epoch.advanced(by: deadline), tolerance: nil) }
        self.fire = Mutex(fire)
    }

    /// A timer on a time line of the owner's: `elapsed` reads it, `sleepUntil` sleeps until a
    /// point of it.
    package init(elapsed: @escaping @Sendable () -> Duration, sleepUntil: @escaping @Sendable (Duration) async throws -> Void,
                 fire: @escaping @Sendable (Duration) -> Void) {
        self.elapsed = elapsed
        self.sleepUntil = sleepUntil
        self.fire = Mutex(fire)
    }

    /// Now, as a duration since the timer was made.
    package var now: Duration { elapsed() }

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
            state.task = Task { [weak self, sleepUntil] in
                do { try await sleepUntil(deadline) } catch { return }
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
        fire(elapsed())
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
