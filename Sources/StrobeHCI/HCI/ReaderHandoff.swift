import Synchronization

/// A reference the transport's reader thread uses on every packet (a routing table, a handler)
/// while other threads replace it now and then. The reader keeps its own reference and adopts a
/// new one only when one has been offered: in the steady state a use costs one relaxed load, no
/// lock, no reference counting. After `offer` returns, every use that starts sees the new value.
///
/// A noncopyable struct kept inline in its owner. `current()` must only ever be called from one thread
/// at a time (the reader, or whoever stands in for it in a test); `offer` from any thread.
package struct ReaderHandoff<Value: AnyObject & Sendable>: ~Copyable, @unchecked Sendable {
    /// The offered value's bits, `Self.none` when nothing is offered, `Self.empty` for nil.
    @usableFromInline let offered = Atomic<UInt>(ReaderHandoff.none)
    /// The reader's own reference, touched only inside `current()` (one thread at a time).
    @usableFromInline let slot: UnsafeMutablePointer<Unmanaged<Value>?>

    @usableFromInline static var none: UInt { 0 }
    @usableFromInline static var empty: UInt { 1 }

    package init(_ value: Value?) {
        slot = .allocate(capacity: 1)
        slot.initialize(to: value.map { Unmanaged.passRetained($0) })
    }

    deinit {
        slot.pointee?.release()
        slot.deallocate()
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
        return slot.pointee
    }

    @usableFromInline @inline(never)
    func adopt() {
        let bits = offered.exchange(Self.none, ordering: .acquiring)
        guard bits != Self.none else { return }
        let old = slot.pointee
        slot.pointee = bits == Self.empty ? nil : Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
        old?.release()
    }

    private static func release(_ bits: UInt) {
        guard bits != none, bits != empty, let pointer = UnsafeRawPointer(bitPattern: bits) else { return }
        Unmanaged<Value>.fromOpaque(pointer).release()
    }
}
