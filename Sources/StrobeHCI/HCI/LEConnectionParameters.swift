/// The connection parameters that LE Create Connection, LE Extended Create Connection and
/// LE Connection Update share, in the spec's units.
public struct LEConnectionParameters: Sendable, Hashable {
    /// Connection interval bounds in 1.25 ms units (0x0006 ... 0x0C80).
    public var intervalMin: UInt16
    /// Longest acceptable connection interval in 1.25 ms units (0x0006 ... 0x0C80, 7.5 ms ... 4 s);
    /// not less than `intervalMin`.
    public var intervalMax: UInt16
    /// Peripheral latency in connection events (0 ... 0x01F3).
    public var maxLatency: UInt16
    /// Supervision timeout in 10 ms units (0x000A ... 0x0C80).
    public var supervisionTimeout: UInt16
    /// Connection event length hints in 0.625 ms units.
    public var minCELength: UInt16
    /// Longest connection event the host asks for, a hint in 0.625 ms units (default 0); not less
    /// than `minCELength`.
    public var maxCELength: UInt16

    /// From values in the specification's units; latency and connection event lengths default to 0.
    /// Nothing is checked here: see `isValid`.
    public init(intervalMin: UInt16, intervalMax: UInt16, maxLatency: UInt16 = 0,
                supervisionTimeout: UInt16, minCELength: UInt16 = 0, maxCELength: UInt16 = 0) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.maxLatency = maxLatency
        self.supervisionTimeout = supervisionTimeout
        self.minCELength = minCELength
        self.maxCELength = maxCELength
    }

    /// From durations: intervals rounded to 1.25 ms, the timeout to 10 ms.
    public init(interval: ClosedRange<Duration>, maxLatency: UInt16 = 0, supervisionTimeout: Duration) {
        self.init(
            intervalMin: LETime.units(interval.lowerBound, of: .microseconds(1250), range: 0x0006...0x0C80),
            intervalMax: LETime.units(interval.upperBound, of: .microseconds(1250), range: 0x0006...0x0C80),
            maxLatency: maxLatency,
            supervisionTimeout: LETime.units(supervisionTimeout, of: .milliseconds(10), range: 0x000A...0x0C80))
    }

    /// Whether these are within the specification's ranges (Vol 4, Part E, 7.8.12; Vol 3,
    /// Part A, 4.20) with a supervision timeout longer than (1 + latency) connection events at
    /// the longest interval, twice over (Vol 6, Part B, 4.5.2).
    public var isValid: Bool {
        guard (0x0006...0x0C80).contains(intervalMin), (0x0006...0x0C80).contains(intervalMax), intervalMin <= intervalMax,
              maxLatency <= 0x01F3, (0x000A...0x0C80).contains(supervisionTimeout) else { return false }
        // Timeout in 10 ms units, interval in 1.25 ms units.
        return UInt32(supervisionTimeout) * 8 > (1 + UInt32(maxLatency)) * UInt32(intervalMax) * 2
    }

    /// The six fields in the order every command that carries them has them.
    package mutating func walk<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Interval_Min", &intervalMin)
        try walker.field("Connection_Interval_Max", &intervalMax)
        try walker.field("Max_Latency", &maxLatency)
        try walker.field("Supervision_Timeout", &supervisionTimeout)
        try walker.field("Min_CE_Length", &minCELength)
        try walker.field("Max_CE_Length", &maxCELength)
    }
}
