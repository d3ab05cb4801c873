/// Follows a 16-bit sequence number that a device increments once per record or batch, wrapping
/// 65535 -> 0, and counts what its jumps say about the link.
///
/// A forward jump of less than half the number space is records lost in between. Anything else
/// (a repeat, a step back, a jump of half the space or more) is taken as out of order (a duplicate
/// or a device that restarted counting): it is counted apart and the tracker follows the new number,
/// so a restarted device does not look like 65 000 lost records.
public struct SequenceNumberTracker: Sendable, Equatable {
    /// What one observed number says.
    public enum Observation: Sendable, Equatable {
        /// The first number seen: nothing to compare with.
        case first
        case inOrder
        /// `lost` numbers were skipped.
        case gap(lost: Int)
        case outOfOrder
    }

    public private(set) var last: UInt16?
    /// Sequence numbers skipped over, in total.
    public private(set) var lost: UInt64 = 0
    /// Observations that repeated or went back.
    public private(set) var outOfOrder: UInt64 = 0

    public init() {}

    @discardableResult
    public mutating func observe(_ sequence: UInt16) -> Observation {
        defer { last = sequence }
        guard let last else { return .first }
        let jump = sequence &- (last &+ 1)
        if jump == 0 { return .inOrder }
        if jump < 0x8000 {
            lost += UInt64(jump)
            return .gap(lost: Int(jump))
        }
        outOfOrder += 1
        return .outOfOrder
    }

    /// Forgets the last number (a new connection starts a new count) but keeps the totals.
    public mutating func restart() { last = nil }
}
