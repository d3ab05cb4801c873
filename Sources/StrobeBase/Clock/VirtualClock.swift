import Synchronization

/// A clock that only moves when told to. `sleep(until:)` suspends until `advance(by:)` or
/// `advance(to:)` moves the time to or past the deadline, so that code measuring timeouts on an
/// injected clock can be tested without ever sleeping for real.
public final class VirtualClock: Clock, Sendable {
    /// Virtual durations are ordinary `Swift.Duration` values.
    public typealias Duration = Swift.Duration

    /// A point on the virtual time line: the time since the clock's origin.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// The time since the clock's origin (time zero).
        public var offset: Swift.Duration

        /// The instant `offset` after the origin.
        public init(offset: Swift.Duration) { self.offset = offset }

        /// The instant `duration` later (earlier when `duration` is negative).
        public func advanced(by duration: Swift.Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`; negative when `other` is earlier.
        public func duration(to other: Instant) -> Swift.Duration { other.offset - offset }
        /// Earlier instants order first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        /// `t+` and the offset since the origin, such as `t+1.5 seconds`.
        public var description: String { "t+\(offset)" }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct SleeperWaiter {
        var id: UInt64
        var count: Int
        var deadline: Instant?
        var continuation: CheckedContinuation<Void, Never>

        func isSatisfied(by deadlines: [Instant]) -> Bool {
            guard let deadline else { return deadlines.count >= count }
            return deadlines.lazy.filter { $0 == deadline }.count >= count
        }
    }

    /// A host loop's deadline on this clock: a handler, and when it is due. No task sleeps for
    /// it: time moving past it posts the handler to the scheduler.
    private struct LoopTimer {
        var handler: (@Sendable () -> Void)?
        var deadline: Instant?
        /// When it was armed, in the order of ids: timers and sleeps due at one instant go in
        /// the order they were set.
        var armed: UInt64 = 0
    }

    private struct State {
        var now: Instant
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        /// Sleeps whose task was cancelled before they registered.
        var cancelled: Set<UInt64> = []
        /// Sleeps between getting an id and registering, so a cancellation can find them.
        var registering: Set<UInt64> = []
        var sleeperWaiters: [SleeperWaiter] = []
        var timers: [UInt64: LoopTimer] = [:]

        /// Every deadline waited for: the sleeps' and the armed timers'.
        var deadlines: [Instant] { sleepers.map(\.deadline) + timers.values.compactMap(\.deadline) }
    }

    private let state: Lock<State>

    /// The queue a virtual-time run of this clock goes through (see `executor`).
    package let scheduler = VirtualScheduler()

    /// Where a task of a virtual-time run on this clock must run to keep the run's order:
    /// `Task(executorPreference: clock.executor) { ... }`. A test's body and its child tasks run
    /// here already; a task started with `Task {}` does not, and a sleep on the clock from one
    /// fails the run (`VirtualTimeError.escaped`). Undriven, its jobs run on the global executor.
    public var executor: any TaskExecutor { scheduler }

    /// A clock that starts at `now` (default: the origin) and moves only through `advance(by:)` or
    /// `advance(to:)`.
    public init(now: Instant = Instant(offset: .zero)) {
        state = Lock(State(now: now))
    }

    /// The current virtual time; it changes only when `advance(by:)` or `advance(to:)` moves it.
    public var now: Instant { state.withLock { $0.now } }

    /// One nanosecond: the finest step the clock distinguishes.
    public var minimumResolution: Swift.Duration { .nanoseconds(1) }

    /// How many sleeps (and armed timers of host loops on the clock) wait for time to move.
    public var sleeperCount: Int { state.withLock { $0.deadlines.count } }

    /// The earliest deadline any sleep or timer waits for.
    public var nextDeadline: Instant? { state.withLock { $0.deadlines.min() } }

    /// Suspends until the virtual time reaches `deadline`, returning at once when it already has;
    /// `tolerance` is ignored. Throws `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        scheduler.checkSleeper()
        let id: UInt64? = state.withLock { s in
            guard deadline > s.now else { return nil }
            s.nextID += 1
            s.registering.insert(s.nextID)
            return s.nextID
        }
        guard let id else {
            try Task.checkCancellation()
            return
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, ready) = state.withLock { s -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    s.registering.remove(id)
                    if s.cancelled.remove(id) != nil { return (.failure(CancellationError()), []) }
                    // Time may have moved while this task was getting here.
                    if deadline <= s.now { return (.success(()), []) }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (nil, Self.takeSatisfiedWaiters(&s))
                }
                if let outcome { continuation.resume(with: outcome) }
                for waiter in ready { waiter.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                if let index = s.sleepers.firstIndex(where: { $0.id == id }) {
                    return s.sleepers.remove(at: index).continuation
                }
                if s.registering.contains(id) { s.cancelled.insert(id) }
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration` and wakes every sleep whose deadline is reached, earliest first.
    public func advance(by duration: Swift.Duration) {
        let target = now.advanced(by: duration)
        advance(to: target)
    }

    /// Moves time to `instant` (never backwards) and wakes every sleep whose deadline is reached,
    /// and posts every timer's, earliest first.
    public func advance(to instant: Instant) {
        enum Due {
            case sleeper(CheckedContinuation<Void, any Error>)
            case timer(UInt64)
        }
        let due = state.withLock { s -> [Due] in
            if instant > s.now { s.now = instant }
            let now = s.now
            var due: [(deadline: Instant, order: UInt64, what: Due)] = s.sleepers
                .filter { $0.deadline <= now }
                .map { ($0.deadline, $0.id, .sleeper($0.continuation)) }
            s.sleepers.removeAll { $0.deadline <= now }
            for (id, timer) in s.timers {
                guard let deadline = timer.deadline, deadline <= now else { continue }
                s.timers[id]?.deadline = nil
                due.append((deadline, timer.armed, .timer(id)))
            }
            return due.sorted { ($0.deadline, $0.order) < ($1.deadline, $1.order) }.map(\.what)
        }
        for item in due {
            switch item {
            case .sleeper(let continuation): continuation.resume()
            case .timer(let id): postTimer(id)
            }
        }
    }

    // MARK: Timers of host loops

    /// A new timer, with no deadline and no handler yet.
    package func registerTimer() -> UInt64 {
        state.withLock { s in
            s.nextID += 1
            s.timers[s.nextID] = LoopTimer()
            return s.nextID
        }
    }

    /// What the timer calls, through the scheduler, when its deadline comes.
    package func setTimerHandler(_ id: UInt64, _ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.timers[id]?.handler = handler }
    }

    /// Arms the timer for `deadline` (a deadline reached already posts it at once), or disarms it.
    package func setTimer(_ id: UInt64, at deadline: Instant?) {
        let (due, ready) = state.withLock { s -> (Bool, [CheckedContinuation<Void, Never>]) in
            guard s.timers[id] != nil else { return (false, []) }
            guard let deadline, deadline > s.now else {
                s.timers[id]?.deadline = nil
                return (deadline != nil, [])
            }
            s.nextID += 1
            s.timers[id]?.deadline = deadline
            s.timers[id]?.armed = s.nextID
            return (false, Self.takeSatisfiedWaiters(&s))
        }
        if due { postTimer(id) }
        for waiter in ready { waiter.resume() }
    }

    /// Takes the timer out: it is never called again.
    package func removeTimer(_ id: UInt64) {
        // Dropped after the lock: what it captured may end, and take this lock on its way.
        let timer = state.withLock { $0.timers.removeValue(forKey: id) }
        _ = timer
    }

    /// Runs the timer's handler after everything queued before it, if it is still there then.
    private func postTimer(_ id: UInt64) {
        scheduler.post { [weak self] in
            guard let handler = self?.state.withLock({ $0.timers[id]?.handler }) else { return }
            handler()
        }
    }

    /// Suspends until at least `count` sleeps (or armed timers) are waiting (only those for
    /// `deadline`, when given), or until the task is cancelled: lets a test advance time only once the code under
    /// test has started its timer, without sleeping for real.
    public func waitForSleepers(count: Int = 1, deadline: Instant? = nil) async {
        let id = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { s -> Bool in
                    let waiter = SleeperWaiter(id: id, count: count, deadline: deadline, continuation: continuation)
                    if waiter.isSatisfied(by: s.deadlines) || Task.isCancelled { return true }
                    s.sleeperWaiters.append(waiter)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s -> SleeperWaiter? in
                guard let index = s.sleeperWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleeperWaiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }

    private static func takeSatisfiedWaiters(_ s: inout State) -> [CheckedContinuation<Void, Never>] {
        guard !s.sleeperWaiters.isEmpty else { return [] }
        let deadlines = s.deadlines
        let ready = s.sleeperWaiters.filter { $0.isSatisfied(by: deadlines) }.map(\.continuation)
        s.sleeperWaiters.removeAll { $0.isSatisfied(by: deadlines) }
        return ready
    }
}
