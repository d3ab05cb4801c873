import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// Takes a light's state notifications and hands each to whoever waits for one; notifications
/// that are no state frame are counted and dropped.
final class LEDnetStateReceiver: ATTValueHandler {
    private struct State {
        var waiters: [Waiter<LEDnetState>] = []
        var closed = false
        var malformed = 0
    }

    private let state = Lock(State())
    /// The central's clock: a light's answer is waited for in its time (virtual in tests).
    private let clock: any Clock<Duration>

    init(clock: any Clock<Duration>) {
        self.clock = clock
    }

    var malformedCount: Int { state.withLock { $0.malformed } }

    /// Sends via `query` once waiting, then waits for the next state up to `timeout` (nil: none
    /// came, the query failed, or the link closed).
    func nextState(within timeout: Duration, after query: () async throws -> Void) async -> LEDnetState? {
        let waiter = Waiter<LEDnetState>()
        let closed = state.withLock { s -> Bool in
            if !s.closed { s.waiters.append(waiter) }
            return s.closed
        }
        defer { state.withLock { $0.waiters.removeAll { $0 == waiter } } }
        guard !closed, (try? await query()) != nil else { return nil }
        return try? await withTimeout(timeout, clock: clock) { try await waiter.wait() }
    }

    func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) {
        guard let decoded = try? LEDnetState(decoding: Array(value)) else {
            state.withLock { $0.malformed += 1 }
            return
        }
        for waiter in state.withLock({ $0.waiters }) { _ = waiter.succeed(decoded) }
    }

    func attributeBearerDidClose(_ reason: ATTBearerCloseReason) {
        let waiters = state.withLock { s -> [Waiter<LEDnetState>] in
            s.closed = true
            return s.waiters
        }
        for waiter in waiters { _ = waiter.fail(CancellationError()) }
    }
}
