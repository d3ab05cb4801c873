import StrobeBase
import Synchronization

/// A value that a receive path reads with no lock (two atomic adds and an atomic load) while
/// anyone may replace it, rarely: handlers and routing tables. A replaced value is released once
/// no reader is inside `read`; until then it waits in a retired list that later replacements
/// (or deinit) empty. Readers never wait and never touch that list.
///
/// A noncopyable struct, stored inline in its owner: on a path that runs seldom (a trigger),
/// every extra object is another cold page to reach.
package struct PublishedReference<Value: AnyObject & Sendable>: ~Copyable, Sendable {
    @usableFromInline let current: Atomic<Unmanaged<Value>?>
    @usableFromInline let readers = Atomic<Int>(0)
    private let retired = Lock<[Unmanaged<Value>]>([])

    package init(_ value: Value?) {
        current = Atomic(value.map { Unmanaged.passRetained($0) })
    }

    deinit {
        current.load(ordering: .acquiring)?.release()
        retired.withLock { list in
            for value in list { value.release() }
        }
    }

    /// Calls `body` with the value in place now; it stays alive until `body` returns.
    @inlinable
    package func read<Result, Failure: Error>(_ body: (Value?) throws(Failure) -> Result) throws(Failure) -> Result {
        // Counted in before the load: a replacement that sees no reader knows no one holds
        // what it replaced (both sides sequentially consistent).
        readers.add(1, ordering: .sequentiallyConsistent)
        defer { readers.subtract(1, ordering: .sequentiallyConsistent) }
        return try body(current.load(ordering: .sequentiallyConsistent)?.takeUnretainedValue())
    }

    /// The value in place now (a strong reference, for callers off the hot path).
    package var value: Value? { read { $0 } }

    /// Puts `value` in place; what it replaces is released as soon as no reader can hold it.
    package func replace(with value: Value?) {
        let old = current.exchange(value.map { Unmanaged.passRetained($0) }, ordering: .sequentiallyConsistent)
        retired.withLock { list in
            if let old { list.append(old) }
            guard !list.isEmpty, readers.load(ordering: .sequentiallyConsistent) == 0 else { return }
            for value in list { value.release() }
            list.removeAll(keepingCapacity: true)
        }
    }
}

/// An immutable box, to publish a value type or an existential through `PublishedReference`.
package final class PublishedBox<Value: Sendable>: Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
