#if canImport(Glibc)
import Glibc
#endif
import StrobeHCI

/// A btsnoop timestamp: microseconds since a nominal "0000-01-01" epoch. What matters is the
/// offset to Unix time that Android, BlueZ and Wireshark all use (`BtsnoopFormat.unixEpochOffset`,
/// 719,540 days; a calendar count from 0000-01-01 would give 719,528). Any 64-bit value is
/// accepted and converts without trapping (out-of-range results saturate).
public struct BtsnoopTimestamp: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The value as stored in the record.
    public var rawValue: Int64

    /// A record's timestamp field as stored: microseconds since the btsnoop epoch.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// The time `unixMicroseconds` after 1970-01-01T00:00Z; a value too large for the field
    /// saturates to `Int64.max`.
    public init(unixMicroseconds: Int64) {
        let (sum, overflow) = unixMicroseconds.addingReportingOverflow(BtsnoopFormat.unixEpochOffset)
        rawValue = overflow ? Int64.max : sum
    }

    /// Microseconds since 1970-01-01T00:00Z.
    public var unixMicroseconds: Int64 {
        let (difference, overflow) = rawValue.subtractingReportingOverflow(BtsnoopFormat.unixEpochOffset)
        return overflow ? Int64.min : difference
    }

    /// The current wall-clock time (CLOCK_REALTIME), to the microsecond.
    public static func now() -> BtsnoopTimestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return BtsnoopTimestamp(unixMicroseconds: Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000)
    }

    /// ISO 8601 in UTC with microseconds, such as `2018-10-14T19:57:19.735026Z`.
    public var iso8601: String {
        let micros = unixMicroseconds
        let perDay: Int64 = 86_400_000_000
        // Floor division, so times before 1970 land on the right day.
        var days = micros / perDay
        var within = micros % perDay
        if within < 0 {
            days -= 1
            within += perDay
        }
        let (year, month, day) = Self.civilDate(daysSinceUnixEpoch: days)
        let seconds = within / 1_000_000
        let fraction = within % 1_000_000
        let yearText: String
        if (0...9999).contains(year) {
            yearText = Self.padded(year, 4)
        } else {
            // ISO 8601 expanded year for values a corrupt file can hold.
            yearText = (year < 0 ? "-" : "+") + Self.padded(year.magnitude, 6)
        }
        return yearText + "-" + Self.padded(month, 2) + "-" + Self.padded(day, 2)
            + "T" + Self.padded(seconds / 3600, 2) + ":" + Self.padded(seconds / 60 % 60, 2)
            + ":" + Self.padded(seconds % 60, 2) + "." + Self.padded(fraction, 6) + "Z"
    }

    /// The time as `iso8601` writes it.
    public var description: String { iso8601 }

    /// Earlier times order first.
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// Gregorian year, month and day of a day count from 1970-01-01 (the "days from civil"
    /// algorithm run backwards: 400-year eras of 146,097 days, years starting on 1 March).
    static func civilDate(daysSinceUnixEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func padded<T: BinaryInteger>(_ value: T, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

extension BtsnoopTimestamp {
    /// A virtual instant as a record time, its offset counted from the Unix epoch: a capture of a
    /// virtual-time run is then the same file each time.
    public init(virtual instant: VirtualClock.Instant) {
        let (seconds, attoseconds) = instant.offset.components
        self.init(unixMicroseconds: seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
    }
}
