import Synchronization

/// Runs async operations one at a time, in the order they arrive. A caller cancelled while
/// waiting for its turn leaves the line with `CancellationError`.
package final class AsyncSerialGate: Sendable {
    private struct State {
        var busy = false
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
    }

    private let state = Lock(State())

    package init() {}

    package func run<T: Sendable>(_ operation: @Sendable () async throws -> T) async throws -> T {
        try await enter()
        defer { leave() }
        return try await operation()
    }

    private func enter() async throws {
        let id = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let enterNow = state.withLock { s -> Bool in
                    if !s.busy {
                        s.busy = true
                        return true
                    }
                    s.waiters.append((id, continuation))
                    return false
                }
                if enterNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                guard let index = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: index).continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    private func leave() {
        let next = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            guard !s.waiters.isEmpty else {
                s.busy = false
                return nil
            }
            return s.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
