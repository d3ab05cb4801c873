/// Names one enqueued command until its completion. Unlike wire request ids, tickets never wrap
/// within a queue's life, so a late completion cannot be mistaken for another command's.
public struct NovaCommandTicket: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "#\(rawValue)" }
}
