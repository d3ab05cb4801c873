import Synchronization

/// One caller waiting for one outcome: the stack's single way to park a task. Whoever resolves
/// it first wins (its answer, its deadline, cancellation, a disconnect or a close); every later
/// resolution is ignored, so the caller is resumed exactly once, whichever order they race in.
/// An outcome that comes before the caller starts waiting is kept for it.
///
/// Owners keep waiters in their state (for example as the tokens of their state machines) and
/// resolve them outside their own locks.
package final class Waiter<Value: Sendable>: Sendable, Equatable {
    private enum State {
        /// Nobody waits yet and no outcome came.
        case pending
        case parked(CheckedContinuation<Value, any Error>)
        /// Nobody will wait: the outcome goes to this handler.
        case handled(@Sendable (Result<Value, any Error>) -> Void)
        /// The outcome came before the wait.
        case resolved(Result<Value, any Error>)
        case finished
    }

    /// Who takes an outcome once it is decided.
    private enum Taker {
        case parked(CheckedContinuation<Value, any Error>)
        case handled(@Sendable (Result<Value, any Error>) -> Void)
    }

    private let state = Lock(State.pending)

    package init() {}

    /// Whether an outcome has been decided (the caller may not have taken it yet).
    package var isResolved: Bool {
        state.withLock { state in
            if case .pending = state { return false }
            if case .parked = state { return false }
            if case .handled = state { return false }
            return true
        }
    }

    /// Resolves the waiter; returns whether this call decided its outcome.
    @discardableResult
    package func resolve(_ result: Result<Value, any Error>) -> Bool {
        let (decided, taker) = state.withLock { state -> (Bool, Taker?) in
            switch state {
            case .pending:
                state = .resolved(result)
                return (true, nil)
            case .parked(let continuation):
                state = .finished
                return (true, .parked(continuation))
            case .handled(let handler):
                state = .finished
                return (true, .handled(handler))
            case .resolved, .finished:
                return (false, nil)
            }
        }
        switch taker {
        case .parked(let continuation): continuation.resume(with: result)
        case .handled(let handler): handler(result)
        case nil: break
        }
        return decided
    }

    /// Hands the outcome to `handler` instead of a waiting task: at once when it has come, else
    /// on the thread that resolves the waiter (so `handler` must not block). For owners that
    /// react to an outcome from a thread that cannot wait (the reader's, a timer's). Instead of
    /// `wait`, never both.
    package func whenResolved(_ handler: @escaping @Sendable (Result<Value, any Error>) -> Void) {
        if let ready = attach(.handled(handler)) { handler(ready) }
    }

    @discardableResult
    package func succeed(_ value: Value) -> Bool { resolve(.success(value)) }

    @discardableResult
    package func fail(_ error: any Error) -> Bool { resolve(.failure(error)) }

    /// Waits for the outcome. Cancelling the waiting task resolves the waiter with
    /// `CancellationError` at once; when that decides it, `onCancel` runs (once, on the cancelling
    /// thread) so the owner can withdraw or mark what the caller asked for. Wait once.
    package func wait(onCancel: @Sendable () -> Void = {}) async throws -> Value {
        try await withTaskCancellationHandler {
            try await park()
        } onCancel: {
            if resolve(.failure(CancellationError())) { onCancel() }
        }
    }

    /// Waits for the outcome even when the waiting task is cancelled: then `onCancel` runs (once,
    /// on the cancelling thread) and the owner still resolves the waiter, once what it started
    /// has ended (a connection attempt the controller was asked to cancel).
    package func waitThroughCancellation(onCancel: @Sendable () -> Void) async throws -> Value {
        try await withTaskCancellationHandler {
            try await park()
        } onCancel: {
            onCancel()
        }
    }

    private func park() async throws -> Value {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            if let ready = attach(.parked(continuation)) { continuation.resume(with: ready) }
        }
    }

    /// Makes `taker` the one the outcome goes to; returns the outcome instead when it has come
    /// already (or the misuse, when a taker was there before).
    private func attach(_ taker: Taker) -> Result<Value, any Error>? {
        state.withLock { state in
            switch state {
            case .pending:
                switch taker {
                case .parked(let continuation): state = .parked(continuation)
                case .handled(let handler): state = .handled(handler)
                }
                return nil
            case .resolved(let result):
                state = .finished
                return result
            case .parked, .handled, .finished:
                return .failure(WaiterMisuse())
            }
        }
    }

    package static func == (lhs: Waiter, rhs: Waiter) -> Bool { lhs === rhs }
}

/// `wait()` or `whenResolved` was called twice on one waiter: a bug in its owner, reported rather than trapped.
package struct WaiterMisuse: Error, CustomStringConvertible {
    package var description: String { "a waiter was waited on twice" }
}
