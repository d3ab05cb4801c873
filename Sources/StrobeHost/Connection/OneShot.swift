import Synchronization

/// A result delivered once and awaited once, in either order: what arrives before anyone waits
/// is kept, so an event that races ahead of its waiter is never lost.
final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var continuation: CheckedContinuation<Value, any Error>?
    }

    private let state = Mutex(State())

    /// The first call wins; later ones are ignored.
    func fulfill(_ result: Result<Value, any Error>) {
        let continuation = state.withLock { s -> CheckedContinuation<Value, any Error>? in
            guard s.result == nil else { return nil }
            s.result = result
            defer { s.continuation = nil }
            return s.continuation
        }
        continuation?.resume(with: result)
    }

    var value: Value {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { s -> Result<Value, any Error>? in
                    if let result = s.result { return result }
                    s.continuation = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
