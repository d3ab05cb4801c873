import StrobeHCI
import StrobeHost
import Synchronization

/// Takes a light's state notifications and hands each to whoever waits for one; notifications
/// that are no state frame are counted and dropped.
final class LEDnetStateReceiver: ATTValueHandler {
    private struct State {
        var next: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<LEDnetState?, Never>] = [:]
        var closed = false
        var malformed = 0
    }

    private let state = Mutex(State())

    var malformedCount: Int { state.withLock { $0.malformed } }

    /// Sends via `query` once waiting, then waits for the next state up to `timeout` (nil: none came).
    func nextState(within timeout: Duration, after query: @escaping @Sendable () async throws -> Void) async -> LEDnetState? {
        let id = state.withLock { s -> UInt64 in
            s.next += 1
            return s.next
        }
        return await withCheckedContinuation { continuation in
            let closed = state.withLock { s -> Bool in
                if !s.closed { s.waiters[id] = continuation }
                return s.closed
            }
            if closed { return continuation.resume(returning: nil) }
            Task {
                do { try await query() } catch { self.resume(id, with: nil) }
            }
            Task {
                try? await Task.sleep(for: timeout)
                self.resume(id, with: nil)
            }
        }
    }

    private func resume(_ id: UInt64, with value: LEDnetState?) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: value)
    }

    func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) {
        let decoded = try? LEDnetState(decoding: Array(value))
        let waiters = state.withLock { s -> [CheckedContinuation<LEDnetState?, Never>] in
            guard decoded != nil else {
                s.malformed += 1
                return []
            }
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: decoded) }
    }

    func attributeBearerDidClose(_ reason: ATTBearerCloseReason) {
        let waiters = state.withLock { s -> [CheckedContinuation<LEDnetState?, Never>] in
            s.closed = true
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }
}
