import StrobeBase
import Synchronization

/// The controller's one scan, shared by every scanner on it (`HCIController.scanning`). Runs
/// the steps `LEScanArbiter` decides, one at a time, in a task of its own (a caller's
/// cancellation never cuts another's step short); `join` and `leave` return once the
/// controller's scan reflects them, or the step for them failed.
package final class LEScanOwner: Sendable {
    package typealias Settings = LEScanArbiter.Settings

    private let perform: @Sendable (LEScanArbiter.Step) async throws -> Void
    private let executor: (any TaskExecutor)?
    private let state = Lock(State())

    private struct State {
        var arbiter = LEScanArbiter()
        var nextClient: UInt64 = 0
        var stepping = false
        /// Callers waiting for the steps to settle.
        var settled: [Waiter<Void>] = []
        /// Steps taken so far; a leave hears the failure of a disable taken after it was asked.
        var stepsTaken: UInt64 = 0
        /// Callers of `leave` waiting for the steps to settle: the steps taken when each asked,
        /// and the first failure of a later disable.
        var leaving: [(waiter: Waiter<Void>, after: UInt64, failure: (any Error)?)] = []
        /// Why the scan of a client the arbiter dropped failed, until its `join` hears it.
        var failures: [UInt64: any Error] = [:]
        /// Who hears that a client's scan ended without its leaving.
        var dropHandlers: [UInt64: @Sendable (any Error) -> Void] = [:]
        /// Set once the controller closed: what a client not served then hears.
        var closed: HCIError?
    }

    /// `perform` sends a step's commands; the steps run on `executor` (the host loop's).
    package init(executor: (any TaskExecutor)? = nil, perform: @escaping @Sendable (LEScanArbiter.Step) async throws -> Void) {
        self.executor = executor
        self.perform = perform
    }

    package func newClient() -> UInt64 {
        state.withLock { s in
            s.nextClient += 1
            return s.nextClient
        }
    }

    /// What the controller scans with now, nil while it does not.
    package var running: Settings? { state.withLock { $0.arbiter.running } }

    /// Whether the scan the clients want uses the extended commands; nil while nobody scans.
    package var usesExtendedCommands: Bool? { state.withLock { $0.arbiter.wanted?.extended } }

    /// Scans for `client` with `settings` (or changes them); returns once the controller's scan
    /// serves it. Throws `HCIError.scanConflict` when the scan others run cannot (the client's
    /// earlier request, if any, is withdrawn too), or the error of the command that failed. A
    /// cancelled caller leaves. `onDropped` hears if the scan later ends without the client
    /// leaving (a restart for others that failed, the error given).
    package func join(_ client: UInt64, _ settings: Settings,
                      onDropped: @escaping @Sendable (any Error) -> Void = { _ in }) async throws {
        let waiter = Waiter<Void>()
        let refusal = state.withLock { s -> HCIError? in
            do throws(HCIError) {
                try s.arbiter.join(client, settings)
            } catch {
                return error
            }
            s.failures[client] = nil
            s.dropHandlers[client] = onDropped
            s.settled.append(waiter)
            return nil
        }
        if let refusal {
            forget(client)
            throw refusal
        }
        do {
            try await settle(waiter)
        } catch {
            forget(client)
            throw error
        }
        let (failure, served, closed) = state.withLock { s in
            (s.failures.removeValue(forKey: client), s.arbiter.isServed(client), s.closed)
        }
        if let failure { throw failure }
        // Not served and no failure: the controller closed, or the client left meanwhile.
        if !served { throw closed ?? CancellationError() }
    }

    /// `client` is done; returns once the controller's scan no longer runs for it (disabled when
    /// it was the last), also when the calling task is cancelled. The client is gone either way;
    /// throws the error of a command sent for it that failed (a disable the controller refused
    /// or never took), so that a scan left running is never reported as stopped.
    package func leave(_ client: UInt64) async throws {
        let waiter = Waiter<Void>()
        state.withLock { s in
            s.arbiter.leave(client)
            s.failures[client] = nil
            s.dropHandlers[client] = nil
            s.leaving.append((waiter, s.stepsTaken, nil))
        }
        startSteps()
        // Resolved by the steps' end (each command has its deadline).
        try await waiter.waitThroughCancellation {}
    }

    /// `leave` without waiting for the controller (a scanner going away, a cancelled join).
    package func forget(_ client: UInt64) {
        state.withLock { s in
            s.arbiter.leave(client)
            s.failures[client] = nil
            s.dropHandlers[client] = nil
        }
        startSteps()
    }

    /// The controller closed (with `error`): nothing scans now, and nobody is served.
    package func controllerClosed(_ error: HCIError) {
        state.withLock { s in
            s.arbiter.reset()
            s.failures = [:]
            s.dropHandlers = [:]
            s.closed = error
        }
    }

    private func settle(_ waiter: Waiter<Void>) async throws {
        startSteps()
        try await waiter.wait()
    }

    private func startSteps() {
        let start = state.withLock { s in
            if s.stepping { return false }
            s.stepping = true
            return true
        }
        guard start else { return }
        Task(executorPreference: executor) { await self.runSteps() }
    }

    private func runSteps() async {
        while true {
            let next = state.withLock { s -> (step: LEScanArbiter.Step?, settled: [Waiter<Void>], left: [(Waiter<Void>, (any Error)?)]) in
                if let step = s.arbiter.nextStep() {
                    s.stepsTaken += 1
                    return (step, [], [])
                }
                s.stepping = false
                defer {
                    s.settled = []
                    s.leaving = []
                }
                return (nil, s.settled, s.leaving.map { ($0.waiter, $0.failure) })
            }
            guard let step = next.step else {
                for waiter in next.settled { waiter.succeed(()) }
                for (waiter, failure) in next.left {
                    if let failure { waiter.fail(failure) } else { waiter.succeed(()) }
                }
                return
            }
            do {
                try await perform(step)
                state.withLock { $0.arbiter.stepSucceeded() }
            } catch {
                // A joining client hears it from its join, one already served from its handler,
                // one that left before a disable that failed from its leave (the scan it left may
                // still run; a failed start for others leaves it no scan to care about).
                let handlers = state.withLock { s in
                    if case .stop = step {
                        let taken = s.stepsTaken
                        for index in s.leaving.indices where s.leaving[index].after < taken && s.leaving[index].failure == nil {
                            s.leaving[index].failure = error
                        }
                    }
                    let dropped = s.arbiter.stepFailed()
                    for client in dropped.joining {
                        s.failures[client] = error
                        s.dropHandlers[client] = nil
                    }
                    return dropped.served.compactMap { s.dropHandlers.removeValue(forKey: $0) }
                }
                for handler in handlers { handler(error) }
            }
        }
    }
}
