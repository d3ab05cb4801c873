/// What `NotificationRing.tryPush` did with a notification. Every outcome except `.pushed` is
/// counted in `NotificationRingCounters`; none of them blocks or traps.
package enum NotificationPushOutcome: Sendable, Hashable {
    /// Stored in the ring for the consumer.
    case pushed(sequence: UInt64)
    /// The ring was full (the consumer is behind): the notification was dropped.
    case droppedFull(sequence: UInt64)
    /// The value is longer than the ring's `maxValueSize`: the notification was dropped.
    case droppedOversized(sequence: UInt64, length: Int)
    /// The ring is closed: nothing was recorded and no sequence number was used.
    case closed
    /// Another thread was pushing at the same moment. The ring has one producer; the second one
    /// is refused rather than allowed to race. Nothing was recorded and no sequence number was used.
    case concurrentProducer
}

/// How many notifications went where. Each field is read separately, so a snapshot taken while
/// the producer runs may be a few notifications apart between fields.
public struct NotificationRingCounters: Sendable, Hashable {
    /// Stored in the ring.
    public var pushed: UInt64
    /// Dropped because the ring was full.
    public var droppedFull: UInt64
    /// Dropped because the value was longer than `maxValueSize`.
    public var droppedOversized: UInt64
    /// `tryPush` calls refused because another producer was pushing at the same time.
    public var concurrentProducerRejections: UInt64
    /// Handed to the consumer (drain, sequence or callback).
    public var delivered: UInt64
    /// Times a parked sequence consumer was woken (at most once per transport read when the
    /// ring is fed by a bearer).
    public var consumerWakeups: UInt64

    /// Creates counters with the given values, each zero by default.
    public init(
        pushed: UInt64 = 0, droppedFull: UInt64 = 0, droppedOversized: UInt64 = 0,
        concurrentProducerRejections: UInt64 = 0, delivered: UInt64 = 0, consumerWakeups: UInt64 = 0
    ) {
        self.pushed = pushed
        self.droppedFull = droppedFull
        self.droppedOversized = droppedOversized
        self.concurrentProducerRejections = concurrentProducerRejections
        self.delivered = delivered
        self.consumerWakeups = consumerWakeups
    }

    /// Every notification that was given a sequence number.
    public var offered: UInt64 { pushed &+ droppedFull &+ droppedOversized }
    /// Every notification that was given a sequence number but will never be delivered.
    public var dropped: UInt64 { droppedFull &+ droppedOversized }
}
