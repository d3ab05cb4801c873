#if canImport(Glibc)
import Glibc
#endif

/// A monotonic host timestamp in nanoseconds (CLOCK_MONOTONIC), taken when bytes were read
/// from a transport. Simulated transports stamp virtual time in the same unit.
public struct HostTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var nanoseconds: UInt64

    @inlinable public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    public static func now() -> HostTime {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return HostTime(nanoseconds: UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec))
    }

    public static func < (lhs: HostTime, rhs: HostTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public var description: String { "\(nanoseconds)ns" }
}
