/// Names one enqueued command until its completion. Unlike wire request ids, tickets never wrap
/// within a queue's life, so a late completion cannot be mistaken for another command's.
package struct NovaCommandTicket: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let rawValue: UInt64

    package init(rawValue: UInt64) { self.rawValue = rawValue }

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    package var description: String { "#\(rawValue)" }
}
