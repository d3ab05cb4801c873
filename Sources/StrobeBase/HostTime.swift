#if canImport(Glibc)
import Glibc
#endif

/// A monotonic host timestamp in nanoseconds (CLOCK_MONOTONIC), taken when bytes were read
/// from a transport. Simulated transports stamp virtual time in the same unit.
public struct HostTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Nanoseconds on CLOCK_MONOTONIC (from an arbitrary start, such as boot), or on the virtual
    /// time line of a simulated transport.
    public var nanoseconds: UInt64

    /// From a nanosecond count on the same clock.
    @inlinable public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// The current CLOCK_MONOTONIC time (inlinable: a transport's reader stamps every read).
    @inlinable public static func now() -> HostTime {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return HostTime(nanoseconds: UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec))
    }

    /// Earlier times order first.
    public static func < (lhs: HostTime, rhs: HostTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The count with its unit, such as `123456789ns`.
    public var description: String { "\(nanoseconds)ns" }
}
