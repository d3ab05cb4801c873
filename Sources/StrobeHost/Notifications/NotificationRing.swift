import StrobeHCI
import StrobeBase
import Synchronization

/// A lock-free single-producer, single-consumer ring of notifications for one GATT subscription.
///
/// The producer is the transport's reader thread: `tryPush` copies the value into a slot, never
/// blocks, never allocates, and drops (and counts) when the ring is full or the value too long.
/// The consumer uses exactly one of three modes, fixed by the first one used:
/// - `drain(maxCount:_:)`: pull, without allocating, from a real-time loop;
/// - `notifications()`: an `AsyncSequence` of copied values whose iterator parks without spinning;
/// - `init(capacity:maxValueSize:onNotification:)`: a callback run on the producer's thread.
///
/// Storage (slots and indices) is allocated once, in `init`.
///
/// `@unchecked Sendable` is sound because every piece of mutable state is either atomic or owned
/// by one side at a time, and the ownership is enforced rather than assumed:
/// - with monotonic indices, the producer writes slot `head` only while `head - tail < capacity`
///   (the slot is free) and the consumer reads slot `tail` only while `tail < head` (it is
///   published); the release/acquire pairs on `head` and `tail` hand each slot from side to side;
/// - the producer-private fields are touched only by the one producer of the moment: pushes do not
///   overlap (the contract of `tryPush`; a push from inside the callback is refused, and debug
///   builds refuse any overlap); successive producers on different threads are ordered by
///   whatever hands the packets from one to the next (the release at the end of each push);
/// - likewise the consumer-private fields, by the one consumer of the moment: the mode fixed by
///   the first use keeps a sequence or a callback to itself; `drain` calls must not overlap
///   (debug builds refuse an overlapping one, which delivers nothing);
/// - the parked continuation lives behind a `Mutex` and is taken by exactly one waker.
public final class NotificationRing: @unchecked Sendable {
    /// Slots in the ring: the requested capacity rounded up to a power of two.
    public let capacity: Int
    /// The longest value a slot holds; longer values are dropped as `.droppedOversized`.
    public let maxValueSize: Int

    /// Upper bounds that keep the single allocation reasonable.
    public static let maximumCapacity = 1 << 20
    /// 65535 bytes: a larger `maxValueSize` is clamped to it.
    public static let maximumValueSizeLimit = Int(UInt16.max)

    @usableFromInline let mask: Int
    @usableFromInline let slotStride: Int
    @usableFromInline let slots: UnsafeMutableRawPointer
    private let control: UnsafeMutableRawPointer
    private let producer: UnsafeMutablePointer<ProducerLine>
    @usableFromInline let consumer: UnsafeMutablePointer<ConsumerLine>
    /// `head` and `tail` each on a line of its own: the other side reads it, and the side that
    /// writes it keeps its private fields elsewhere, so taking its own flag never waits for the
    /// line the other side just read.
    @usableFromInline let headLine: UnsafeMutablePointer<IndexLine>
    @usableFromInline let tailLine: UnsafeMutablePointer<IndexLine>
    @usableFromInline let shared: UnsafeMutablePointer<SharedLine>
    /// The parked consumer, if any. Held by the consumer only to store it, by a waker only to take it.
    private let waiter = Lock<UnsafeContinuation<Void, Never>?>(nil)
    private let handler: (@Sendable (NotificationView) -> Void)?

    // Slot layout: sequence, timestamp, handle, length (a UInt16: `maxValueSize` is at most
    // 65535), then the value bytes inline. A 20-byte header leaves 44 bytes of a 64-byte line to
    // the value (a stylus batch of eight samples): in a slot that starts on a line, one line per
    // notification, not two.
    @inlinable static var sequenceOffset: Int { 0 }
    @inlinable static var timestampOffset: Int { 8 }
    @inlinable static var handleOffset: Int { 16 }
    @inlinable static var lengthOffset: Int { 18 }
    @inlinable static var valueOffset: Int { 20 }
    /// Index lines are aligned to 128 bytes: a cache line on Apple silicon, two on x86 (whose
    /// adjacent-line prefetcher pulls pairs), so the two sides' indices never share one.
    private static let lineSize = 128
    /// Slots are packed, 8-byte aligned: every line the producer fills has to be taken back from
    /// the consumer that read it, so fewer lines per notification make a push cheaper, more than
    /// neighbours sharing a line (the consumer reading right behind the producer) cost. Slots of
    /// eight lines or more (a `maxValueSize` of 485 or more) start on a line, so that a short
    /// value in one (the usual notification) takes the fewest lines (with many links, each ring's
    /// next slot is cold); the padding costs them at most an eighth.
    private static let slotAlignment = 8
    private static let cacheLine = 64

    /// Creates a ring. `capacity` is rounded up to a power of two (at least 1, at most
    /// `maximumCapacity`); `maxValueSize` is clamped to `0...maximumValueSizeLimit`.
    /// With `onNotification`, the ring runs in callback mode: each pushed notification is handed to
    /// it on the producer's thread, right after the push; it must return quickly and not block.
    public init(
        capacity: Int,
        maxValueSize: Int = 512,
        onNotification: (@Sendable (NotificationView) -> Void)? = nil
    ) {
        let clampedCapacity = min(max(capacity, 1), Self.maximumCapacity)
        var rounded = 1
        while rounded < clampedCapacity { rounded <<= 1 }
        self.capacity = rounded
        self.mask = rounded - 1
        self.maxValueSize = min(max(maxValueSize, 0), Self.maximumValueSizeLimit)
        let line = Self.lineSize
        let slotAlignment = Self.slotAlignment
        let packed = (Self.valueOffset + self.maxValueSize + slotAlignment - 1) / slotAlignment * slotAlignment
        self.slotStride = packed < 8 * Self.cacheLine ? packed : (packed + Self.cacheLine - 1) / Self.cacheLine * Self.cacheLine
        self.slots = UnsafeMutableRawPointer.allocate(byteCount: rounded * slotStride, alignment: line)

        let lineStride = max(
            line,
            (max(MemoryLayout<ProducerLine>.size, MemoryLayout<ConsumerLine>.size, MemoryLayout<SharedLine>.size)
                + line - 1) / line * line
        )
        self.control = UnsafeMutableRawPointer.allocate(byteCount: 5 * lineStride, alignment: line)
        self.producer = control.bindMemory(to: ProducerLine.self, capacity: 1)
        self.producer.initialize(to: ProducerLine())
        self.consumer = (control + lineStride).bindMemory(to: ConsumerLine.self, capacity: 1)
        self.consumer.initialize(to: ConsumerLine())
        self.shared = (control + 2 * lineStride).bindMemory(to: SharedLine.self, capacity: 1)
        self.shared.initialize(to: SharedLine())
        self.headLine = (control + 3 * lineStride).bindMemory(to: IndexLine.self, capacity: 1)
        self.headLine.initialize(to: IndexLine())
        self.tailLine = (control + 4 * lineStride).bindMemory(to: IndexLine.self, capacity: 1)
        self.tailLine.initialize(to: IndexLine())

        self.handler = onNotification
        if onNotification != nil {
            shared.pointee.mode.store(ConsumerMode.callback.rawValue, ordering: .relaxed)
        }
    }

    deinit {
        producer.deinitialize(count: 1)
        consumer.deinitialize(count: 1)
        shared.deinitialize(count: 1)
        headLine.deinitialize(count: 1)
        tailLine.deinitialize(count: 1)
        control.deallocate()
        slots.deallocate()
    }

    // MARK: Producer

    /// Offers one notification. Never blocks, never allocates, takes no locked instruction. One
    /// producer at a time (the transport's reader, or whichever thread a transport delivers on,
    /// one packet after another): pushes must not overlap. A push from inside the callback is
    /// refused with `.concurrentProducer`; debug builds also refuse a push that overlaps one on
    /// another thread.
    package func tryPush(handle: AttributeHandle, value: UnsafeRawBufferPointer, at time: HostTime) -> NotificationPushOutcome {
        tryPush(handle: handle, value: value, at: time, deferringWake: false)
    }

    /// `tryPush`, leaving the consumer's wakeup to `finishBatch()`: a transport read of many
    /// notifications wakes a parked consumer once. The producer must call `finishBatch()` after
    /// its batch (the bearer does, at the end of each transport read).
    @inline(__always)
    func pushDeferringWake(handle: AttributeHandle, value: UnsafeRawBufferPointer, at time: HostTime) -> NotificationPushOutcome {
        tryPush(handle: handle, value: value, at: time, deferringWake: true)
    }

    /// Wakes a parked consumer if a push since the last call deferred it. Producer side only.
    func finishBatch() {
        guard producer.pointee.wakeDeferred else { return }
        producer.pointee.wakeDeferred = false
        wakeConsumerIfParked()
    }

    @inline(__always)
    private func tryPush(handle: AttributeHandle, value: UnsafeRawBufferPointer, at time: HostTime,
                         deferringWake: Bool) -> NotificationPushOutcome {
        guard beginPush() else {
            producer.pointee.concurrentRejections.add(1, ordering: .relaxed)
            return .concurrentProducer
        }
        let outcome = push(handle: handle, value: value, at: time)
        if case .pushed = outcome, handler != nil {
            deliverToHandler()
        }
        endPush()
        // A draining consumer never parks: skip the wakeup handshake and its fence.
        if case .pushed = outcome, handler == nil,
           shared.pointee.mode.load(ordering: .relaxed) != ConsumerMode.drain.rawValue {
            if deferringWake {
                producer.pointee.wakeDeferred = true
            } else {
                wakeConsumerIfParked()
            }
        }
        return outcome
    }

    /// Marks a push as running. In release builds a plain flag (the contract keeps pushes from
    /// overlapping, and a flag taken with a locked exchange on every push cost more than the rest
    /// of the push across two cores); debug builds take it with an exchange and so catch overlap.
    @inline(__always)
    private func beginPush() -> Bool {
        #if DEBUG
        return !producer.pointee.busy.exchange(true, ordering: .acquiring)
        #else
        guard !producer.pointee.busy.load(ordering: .relaxed) else { return false }
        producer.pointee.busy.store(true, ordering: .relaxed)
        return true
        #endif
    }

    @inline(__always)
    private func endPush() {
        producer.pointee.busy.store(false, ordering: .releasing)
    }

    /// The push proper, run while a push is marked running.
    @inline(__always)
    private func push(handle: AttributeHandle, value: UnsafeRawBufferPointer, at time: HostTime) -> NotificationPushOutcome {
        if shared.pointee.closed.load(ordering: .relaxed) { return .closed }
        let sequence = producer.pointee.nextSequence
        producer.pointee.nextSequence = sequence &+ 1
        guard value.count <= maxValueSize else {
            Self.increment(producer.pointee.droppedOversized)
            return .droppedOversized(sequence: sequence, length: value.count)
        }
        // Only the producer writes head, so its own relaxed load is current.
        let head = headLine.pointee.index.load(ordering: .relaxed)
        if head &- producer.pointee.cachedTail >= capacity {
            // Acquire pairs with the consumer's release store of tail: the consumer has finished
            // reading a slot before we see it freed and overwrite it.
            producer.pointee.cachedTail = tailLine.pointee.index.load(ordering: .acquiring)
            if head &- producer.pointee.cachedTail >= capacity {
                Self.increment(producer.pointee.droppedFull)
                return .droppedFull(sequence: sequence)
            }
        }
        let slot = slots + (head & mask) &* slotStride
        slot.storeBytes(of: sequence, toByteOffset: Self.sequenceOffset, as: UInt64.self)
        slot.storeBytes(of: time.nanoseconds, toByteOffset: Self.timestampOffset, as: UInt64.self)
        slot.storeBytes(of: handle.rawValue, toByteOffset: Self.handleOffset, as: UInt16.self)
        slot.storeBytes(of: UInt16(value.count), toByteOffset: Self.lengthOffset, as: UInt16.self)
        if let source = value.baseAddress, value.count > 0 {
            Self.copy(value.count, from: source, to: slot + Self.valueOffset)
        }
        // Release pairs with the consumer's acquire load of head: the slot's bytes are visible
        // before the index that publishes them.
        headLine.pointee.index.store(head &+ 1, ordering: .releasing)
        return .pushed(sequence: sequence)
    }

    /// Copies a value into its slot. Notifications are mostly short (a stylus batch, a flash's
    /// ack): those go in 8-byte words, without the call to `memmove` that cost as much as the
    /// rest of a push.
    @inline(__always)
    private static func copy(_ count: Int, from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer) {
        guard count <= 32 else {
            destination.copyMemory(from: source, byteCount: count)
            return
        }
        var offset = 0
        while offset + 8 <= count {
            destination.storeBytes(of: source.loadUnaligned(fromByteOffset: offset, as: UInt64.self), toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < count {
            destination.storeBytes(of: source.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self)
            offset += 1
        }
    }

    /// Single-writer counter bump: a load and a store, no read-modify-write needed.
    @inline(__always)
    private static func increment(_ counter: borrowing Atomic<UInt64>) {
        counter.store(counter.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    // MARK: Consumer: drain

    /// Hands up to `maxCount` notifications, oldest first, to `body`, which borrows each slot for
    /// the duration of its call. Does not allocate. Returns how many were delivered: 0 when the
    /// ring is empty, when another consumer mode owns the ring, or when another drain is running.
    ///
    /// Inlinable, so that `body` is inlined into the loop that hands over each slot.
    @inlinable @discardableResult
    public func drain(maxCount: Int = .max, _ body: (NotificationView) -> Void) -> Int {
        guard claim(.drain) else { return 0 }
        return consume(maxCount: maxCount, body)
    }

    /// Delivers from the consumer side while a delivery is marked running.
    @inlinable
    func consume(maxCount: Int, _ body: (NotificationView) -> Void) -> Int {
        guard maxCount > 0 else { return 0 }
        // An empty ring is answered without taking the flag: a consumer that polls costs the
        // producer nothing but the read of head.
        if tailLine.pointee.index.load(ordering: .relaxed) == headLine.pointee.index.load(ordering: .relaxed) { return 0 }
        guard beginConsume() else { return 0 }
        // Only the consumer writes tail.
        var tail = tailLine.pointee.index.load(ordering: .relaxed)
        var delivered = 0
        while delivered < maxCount {
            if tail == consumer.pointee.cachedHead {
                // Acquire pairs with the producer's release store of head: the slots it published
                // are fully written when we read them.
                consumer.pointee.cachedHead = headLine.pointee.index.load(ordering: .acquiring)
                if tail == consumer.pointee.cachedHead { break }
            }
            let slot = UnsafeRawPointer(slots + (tail & mask) &* slotStride)
            let length = Int(slot.load(fromByteOffset: Self.lengthOffset, as: UInt16.self))
            body(NotificationView(
                handle: AttributeHandle(rawValue: slot.load(fromByteOffset: Self.handleOffset, as: UInt16.self)),
                sequence: slot.load(fromByteOffset: Self.sequenceOffset, as: UInt64.self),
                timestamp: HostTime(nanoseconds: slot.load(fromByteOffset: Self.timestampOffset, as: UInt64.self)),
                value: UnsafeRawBufferPointer(start: slot + Self.valueOffset, count: min(length, maxValueSize))
            ))
            tail &+= 1
            delivered += 1
            // Release pairs with the producer's acquire load of tail: our reads of the slots are
            // done before the producer may reuse them. Freed every 32 slots, so that a slow body
            // does not hold back the whole batch and a fast one does not pull the line from the
            // producer on every slot.
            if delivered & 31 == 0 { tailLine.pointee.index.store(tail, ordering: .releasing) }
        }
        if delivered & 31 != 0 { tailLine.pointee.index.store(tail, ordering: .releasing) }
        if delivered > 0 {
            let counter = consumer.pointee.delivered.load(ordering: .relaxed)
            consumer.pointee.delivered.store(counter &+ UInt64(delivered), ordering: .relaxed)
        }
        consumer.pointee.busy.store(false, ordering: .releasing)
        return delivered
    }

    /// Marks a delivery as running: as `beginPush` on the producer side, a plain flag in release
    /// builds (one consumer at a time is the contract; the sequence and callback modes keep it),
    /// an exchange in debug builds, which refuses an overlapping drain.
    @inlinable @inline(__always)
    func beginConsume() -> Bool {
        #if DEBUG
        return !consumer.pointee.busy.exchange(true, ordering: .acquiring)
        #else
        guard !consumer.pointee.busy.load(ordering: .relaxed) else { return false }
        consumer.pointee.busy.store(true, ordering: .relaxed)
        return true
        #endif
    }

    private func deliverToHandler() {
        guard let handler else { return }
        _ = consume(maxCount: .max, handler)
    }

    // MARK: Consumer: modes and parking

    @usableFromInline enum ConsumerMode: UInt8 {
        case unclaimed = 0, drain, sequence, callback
    }

    /// Claims the consumer side for `mode`. `drain` may be claimed again and again; a sequence
    /// iterator only once; callback mode is set by `init`.
    @usableFromInline func claim(_ mode: ConsumerMode) -> Bool {
        // Already draining: a plain load, so that a consumer polling an empty ring does not take
        // the shared line (which the producer reads on every push) away from the producer.
        if mode == .drain, shared.pointee.mode.load(ordering: .relaxed) == ConsumerMode.drain.rawValue { return true }
        let (exchanged, current) = shared.pointee.mode.compareExchange(
            expected: ConsumerMode.unclaimed.rawValue, desired: mode.rawValue, ordering: .relaxed)
        return exchanged || (mode == .drain && current == ConsumerMode.drain.rawValue)
    }

    private static let idle: UInt8 = 0
    private static let parked: UInt8 = 1

    /// Called by the producer after publishing, and by `close`.
    ///
    /// Wakeup handshake (Dekker): the producer stores head, fences, loads waiterState; the consumer
    /// stores waiterState, fences, loads head (`waitForItems`). With both fences sequentially
    /// consistent, at least one side sees the other's store, so a wakeup is never lost. When
    /// nobody is parked this costs the producer one fence and one load: no lock, no allocation.
    private func wakeConsumerIfParked() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if shared.pointee.waiterState.load(ordering: .relaxed) == Self.parked {
            resumeWaiter()
        }
    }

    /// One-shot: whoever flips parked -> idle first takes and resumes the continuation.
    private func resumeWaiter() {
        // Acquire pairs with the release store of `parked` in `waitForItems`: the continuation
        // stored before it is there to take.
        guard shared.pointee.waiterState.compareExchange(
            expected: Self.parked, desired: Self.idle, ordering: .acquiring
        ).exchanged else { return }
        shared.pointee.wakeups.add(1, ordering: .relaxed)
        let continuation = waiter.withLock { $0.take() }
        continuation?.resume()
    }

    /// Parks the (sequence-mode) consumer until something was pushed, the ring was closed, or the
    /// task was cancelled. May return early; callers loop.
    func waitForItems(isolation actor: isolated (any Actor)? = #isolation) async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: actor) { (continuation: UnsafeContinuation<Void, Never>) in
                waiter.withLock { $0 = continuation }
                // Release pairs with the acquire in `resumeWaiter`.
                shared.pointee.waiterState.store(Self.parked, ordering: .releasing)
                // Pairs with the fence in `wakeConsumerIfParked` (see there).
                atomicMemoryFence(ordering: .sequentiallyConsistent)
                if headLine.pointee.index.load(ordering: .relaxed) != tailLine.pointee.index.load(ordering: .relaxed)
                    || shared.pointee.closed.load(ordering: .relaxed) || Task.isCancelled
                {
                    resumeWaiter()
                }
            }
        } onCancel: {
            resumeWaiter()
        }
    }

    /// Whether a sequence consumer is parked right now (for tests that wait for it, not sleep).
    package var isConsumerParked: Bool {
        shared.pointee.waiterState.load(ordering: .acquiring) == Self.parked
    }

    // MARK: Closing and counters

    /// Closes the ring: later pushes return `.closed`; the sequence delivers what is buffered,
    /// then ends. A push racing with `close` may land after the sequence ended (it is then
    /// counted as pushed but never delivered). Closing twice is harmless.
    public func close() {
        // Release pairs with the consumer's acquire load in `isClosed`: what was pushed before
        // closing is visible to a consumer that sees the ring closed.
        shared.pointee.closed.store(true, ordering: .releasing)
        wakeConsumerIfParked()
    }

    /// Whether `close()` has been called, directly or because the bearer feeding the ring closed.
    public var isClosed: Bool { shared.pointee.closed.load(ordering: .acquiring) }

    /// A snapshot of what was pushed, dropped and delivered so far; the fields are read one by one,
    /// so they may be a few notifications apart while the producer runs.
    public var counters: NotificationRingCounters {
        NotificationRingCounters(
            // Head counts the pushes: it moves once for each and never back.
            pushed: UInt64(headLine.pointee.index.load(ordering: .relaxed)),
            droppedFull: producer.pointee.droppedFull.load(ordering: .relaxed),
            droppedOversized: producer.pointee.droppedOversized.load(ordering: .relaxed),
            concurrentProducerRejections: producer.pointee.concurrentRejections.load(ordering: .relaxed),
            delivered: consumer.pointee.delivered.load(ordering: .relaxed),
            consumerWakeups: shared.pointee.wakeups.load(ordering: .relaxed)
        )
    }

    /// Notifications pushed and not yet consumed (approximate while both sides run).
    public var count: Int {
        let tail = tailLine.pointee.index.load(ordering: .relaxed)
        let head = headLine.pointee.index.load(ordering: .relaxed)
        return max(0, min(capacity, head &- tail))
    }
}

/// One side's index, alone on its line: `head` (the next slot the producer writes, published
/// with release) or `tail` (the next slot the consumer reads, freed with release).
@usableFromInline struct IndexLine: ~Copyable {
    @usableFromInline let index = Atomic<Int>(0)
    init() {}
}

/// The producer's private line: written on every push, read by no one else on the hot path.
private struct ProducerLine: ~Copyable {
    let busy = Atomic<Bool>(false)
    /// The producer's last view of tail, refreshed only when the ring looks full.
    var cachedTail = 0
    var nextSequence: UInt64 = 0
    /// Pushed since the last batch end without waking the consumer (`pushDeferringWake`).
    var wakeDeferred = false
    let droppedFull = Atomic<UInt64>(0)
    let droppedOversized = Atomic<UInt64>(0)
    let concurrentRejections = Atomic<UInt64>(0)
}

/// The consumer's private line: written on every delivery.
@usableFromInline struct ConsumerLine: ~Copyable {
    @usableFromInline let busy = Atomic<Bool>(false)
    /// The consumer's last view of head, refreshed only when the ring looks empty.
    @usableFromInline var cachedHead = 0
    @usableFromInline let delivered = Atomic<UInt64>(0)
    init() {}
}

/// Rarely written state that both sides read.
@usableFromInline struct SharedLine: ~Copyable {
    let closed = Atomic<Bool>(false)
    let mode = Atomic<UInt8>(NotificationRing.ConsumerMode.unclaimed.rawValue)
    let waiterState = Atomic<UInt8>(0)
    /// Counted by whichever side resumes the parked consumer (rare).
    let wakeups = Atomic<UInt64>(0)
}
