import Synchronization

/// A reference the transport's reader thread uses on every packet (a routing table, a handler)
/// while other threads replace it now and then. The reader keeps its own reference and adopts a
/// new one only when one has been offered: in the steady state a use costs one relaxed load, no
/// lock, no reference counting. After `offer` returns, every use that starts sees the new value.
///
/// A noncopyable struct kept inline in its owner. `current()` must only ever be called from one thread
/// at a time (the reader, or whoever stands in for it in a test); `offer` from any thread.
///
/// The type is public and its members are not: Swift 6.3 did not inline `current()` into other
/// modules while the type was `package`, and out of line it cost a call and a metadata lookup on
/// every packet.
public struct ReaderHandoff<Value: AnyObject & Sendable>: ~Copyable, @unchecked Sendable {
    /// The offered value's bits, `Self.none` when nothing is offered, `Self.empty` for nil.
    @usableFromInline let offered = Atomic<UInt>(ReaderHandoff.none)
    /// The reader's own reference (its bits, 0 for nil), written only inside `current()` (one
    /// thread at a time). Inline beside `offered`, so that a use touches one cache line of its
    /// owner and no other allocation.
    @usableFromInline let held: Atomic<UInt>

    @usableFromInline static var none: UInt { 0 }
    @usableFromInline static var empty: UInt { 1 }

    package init(_ value: Value?) {
        held = Atomic(value.map { UInt(bitPattern: Unmanaged.passRetained($0).toOpaque()) } ?? 0)
    }

    deinit {
        Self.release(held.load(ordering: .relaxed))
        Self.release(offered.load(ordering: .acquiring))
    }

    /// Puts `value` in place for the reader's next use.
    package func offer(_ value: Value?) {
        let bits = value.map { UInt(bitPattern: Unmanaged.passRetained($0).toOpaque()) } ?? Self.empty
        // An earlier offer the reader never took is dropped here.
        Self.release(offered.exchange(bits, ordering: .acquiringAndReleasing))
    }

    /// The value in place now, unretained: for the reader to call through
    /// `_withUnsafeGuaranteedRef` with no reference count. Valid until the reader's next use.
    @inlinable @inline(__always)
    package func current() -> Unmanaged<Value>? {
        if offered.load(ordering: .relaxed) != Self.none { adopt() }
        guard let pointer = UnsafeRawPointer(bitPattern: held.load(ordering: .relaxed)) else { return nil }
        return Unmanaged.fromOpaque(pointer)
    }

    @usableFromInline @inline(never)
    func adopt() {
        let bits = offered.exchange(Self.none, ordering: .acquiring)
        guard bits != Self.none else { return }
        // Only this thread writes `held`: a plain load and store (no locked exchange), relaxed,
        // are enough for its own later loads.
        let old = held.load(ordering: .relaxed)
        held.store(bits == Self.empty ? 0 : bits, ordering: .relaxed)
        Self.release(old)
    }

    private static func release(_ bits: UInt) {
        guard bits != none, bits != empty, let pointer = UnsafeRawPointer(bitPattern: bits) else { return }
        Unmanaged<Value>.fromOpaque(pointer).release()
    }
}
