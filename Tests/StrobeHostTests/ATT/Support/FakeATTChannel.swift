import StrobeHost
import Synchronization

/// An in-memory L2CAP channel: records every PDU the bearer sends and hands it to a peer
/// (the test server), which may answer synchronously from inside `send`.
final class FakeATTChannel: ATTChannel {
    let maximumPayload: Int

    private struct State {
        var sent: [[UInt8]] = []
        var peer: (@Sendable ([UInt8]) -> Void)?
        var failure: (any Error)?
        var watchers: [(predicate: @Sendable ([[UInt8]]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    init(maximumPayload: Int = 1024) { self.maximumPayload = maximumPayload }

    func connect(_ peer: @escaping @Sendable ([UInt8]) -> Void) { state.withLock { $0.peer = peer } }
    func failSends(with error: (any Error)?) { state.withLock { $0.failure = error } }

    var sent: [[UInt8]] { state.withLock { $0.sent } }
    func sent(_ opcode: ATTOpcode) -> [[UInt8]] { sent.filter { $0.first == opcode.rawValue } }

    func send(_ pdu: [UInt8]) async throws {
        let (peer, ready, failure) = state.withLock { state -> ((@Sendable ([UInt8]) -> Void)?, [CheckedContinuation<Void, Never>], (any Error)?) in
            if let failure = state.failure { return (nil, [], failure) }
            state.sent.append(pdu)
            let sent = state.sent
            let ready = state.watchers.filter { $0.predicate(sent) }.map(\.continuation)
            state.watchers.removeAll { $0.predicate(sent) }
            return (state.peer, ready, nil)
        }
        if let failure { throw failure }
        for watcher in ready { watcher.resume() }
        peer?(pdu)
    }

    /// Returns once the PDUs sent so far satisfy `predicate`.
    func waitUntil(_ predicate: @escaping @Sendable ([[UInt8]]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if predicate(state.sent) { return true }
                state.watchers.append((predicate, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func waitUntilSent(count: Int) async { await waitUntil { $0.count >= count } }

    func waitUntilSent(_ opcode: ATTOpcode, count: Int = 1) async {
        await waitUntil { sent in sent.filter { $0.first == opcode.rawValue }.count >= count }
    }
}
