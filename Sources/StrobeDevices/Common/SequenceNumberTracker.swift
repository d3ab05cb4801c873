/// Follows a 16-bit sequence number that a device increments once per record or batch, wrapping
/// 65535 -> 0, and counts what its jumps say about the link.
///
/// A forward jump of less than half the number space is records lost in between. Anything else
/// (a repeat, a step back, a jump of half the space or more) is taken as out of order (a duplicate
/// or a device that restarted counting): it is counted apart and the tracker follows the new number,
/// so a restarted device does not look like 65 000 lost records.
@usableFromInline package struct SequenceNumberTracker: Sendable, Equatable {
    /// What one observed number says.
    @usableFromInline package enum Observation: Sendable, Equatable {
        /// The first number seen: nothing to compare with.
        case first
        /// The number follows the last one (65535 is followed by 0): nothing was lost.
        case inOrder
        /// `lost` numbers were skipped.
        case gap(lost: Int)
        /// A repeat, a step back or a forward jump of 0x8000 or more: a duplicate or a device that
        /// restarted counting. It is added to `outOfOrder` and the tracker follows the new number.
        case outOfOrder
    }

    // Stored apart and read through getters, so that `observe` can be inlined into a codec's
    // per-notification path.
    @usableFromInline var lastSeen: UInt16?
    @usableFromInline var lostTotal: UInt64 = 0
    @usableFromInline var outOfOrderTotal: UInt64 = 0

    /// The last number observed; `nil` before the first one and after `restart()`.
    @usableFromInline package var last: UInt16? { lastSeen }
    /// Sequence numbers skipped over, in total.
    @usableFromInline package var lost: UInt64 { lostTotal }
    /// Observations that repeated or went back.
    @usableFromInline package var outOfOrder: UInt64 { outOfOrderTotal }

    /// A tracker that has seen no number yet, with both totals at zero.
    @usableFromInline package init() {}

    /// Records `sequence` as the newest number and says how it follows the previous one, adding a
    /// gap to `lost` and an out-of-order number to `outOfOrder`.
    @inlinable @inline(__always) @discardableResult
    package mutating func observe(_ sequence: UInt16) -> Observation {
        defer { lastSeen = sequence }
        guard let last = lastSeen else { return .first }
        let jump = sequence &- (last &+ 1)
        if jump == 0 { return .inOrder }
        if jump < 0x8000 {
            lostTotal += UInt64(jump)
            return .gap(lost: Int(jump))
        }
        outOfOrderTotal += 1
        return .outOfOrder
    }

    /// Forgets the last number (a new connection starts a new count) but keeps the totals.
    @usableFromInline package mutating func restart() { lastSeen = nil }
}
