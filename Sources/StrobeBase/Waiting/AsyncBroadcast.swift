import Synchronization

/// Hands every value to each current subscriber's `AsyncStream`, in order; a subscriber that
/// stops iterating is dropped. What the kits use for their event and status streams.
package final class AsyncBroadcast<Element: Sendable>: Sendable {
    private struct State {
        var next: UInt64 = 0
        var continuations: [UInt64: AsyncStream<Element>.Continuation] = [:]
        var finished = false
    }

    private let state = Lock(State())

    package init() {}

    /// A new subscription; `first`, when given, is its first element.
    package func stream(startingWith first: Element? = nil) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        let id = state.withLock { s -> UInt64? in
            guard !s.finished else { return nil }
            s.next += 1
            s.continuations[s.next] = continuation
            return s.next
        }
        if let first { continuation.yield(first) }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) } }
        return stream
    }

    package func yield(_ value: Element) {
        let continuations = state.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(value) }
    }

    /// Ends every subscription; later ones end at once.
    package func finish() {
        let continuations = state.withLock { s in
            s.finished = true
            defer { s.continuations.removeAll() }
            return Array(s.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    package var hasSubscribers: Bool { state.withLock { !$0.continuations.isEmpty } }
}
