/// The notifications of one ring as an `AsyncSequence` of copies. The iterator parks when the
/// ring is empty (no spinning) and is woken by the next push; it ends after `close()` once the
/// buffered notifications are delivered, or when its task is cancelled.
///
/// A ring has one consumer: only the first iterator made from a ring that no other consumer mode
/// has claimed delivers anything; any other iterator ends at once.
public struct NotificationSequence: AsyncSequence, Sendable {
    /// Each notification is delivered as a copy.
    public typealias Element = GATTNotification
    /// The sequence never throws: it ends when the ring closes or the task is cancelled.
    public typealias Failure = Never

    let ring: NotificationRing

    /// The ring's counters: what was delivered, and what was dropped because the consumer fell
    /// behind (`droppedFull`) or a value did not fit (`droppedOversized`).
    public var counters: NotificationRingCounters { ring.counters }

    /// The ring's delivering iterator when no consumer has claimed the ring yet; otherwise an
    /// iterator that ends at once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(ring: ring, isActive: ring.claim(.sequence))
    }

    /// Not `Sendable`: one task iterates.
    public struct Iterator: AsyncIteratorProtocol {
        /// Each notification is delivered as a copy.
        public typealias Element = GATTNotification
        /// Iteration never throws.
        public typealias Failure = Never

        let ring: NotificationRing
        var isActive: Bool

        /// The next notification, parking until one is pushed; nil once the ring is closed and
        /// drained, once the task is cancelled, or at once when this iterator is not the ring's consumer.
        public mutating func next() async -> GATTNotification? {
            await next(isolation: nil)
        }

        /// The same as `next()`, resuming on `actor` after parking.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> GATTNotification? {
            guard isActive else { return nil }
            while true {
                if let notification = takeOne() { return notification }
                if ring.isClosed {
                    // Something pushed just before closing is visible now (acquire in isClosed).
                    if let notification = takeOne() { return notification }
                    isActive = false
                    return nil
                }
                if Task.isCancelled {
                    isActive = false
                    return nil
                }
                await ring.waitForItems(isolation: actor)
            }
        }

        private func takeOne() -> GATTNotification? {
            var taken: GATTNotification?
            _ = ring.consume(maxCount: 1) { taken = GATTNotification($0) }
            return taken
        }
    }
}

@available(*, unavailable)
extension NotificationSequence.Iterator: Sendable {}

extension NotificationRing {
    /// The ring's notifications, copied, as an `AsyncSequence` (see `NotificationSequence`).
    public func notifications() -> NotificationSequence {
        NotificationSequence(ring: self)
    }
}
