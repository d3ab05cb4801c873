import StrobeHCI

/// Which connection parameters this host agrees to when a peer asks for new ones, through the
/// link layer (LE Remote Connection Parameter Request) or L2CAP signalling (Connection
/// Parameter Update Request). A decision without I/O: the request in, the parameters to reply
/// with (the ones asked for, narrowed to the policy) or a refusal out.
public struct ConnectionParameterPolicy: Sendable, Hashable {
    /// Connection intervals this host takes, in 1.25 ms units.
    public var interval: ClosedRange<UInt16>
    /// The most connection events a peripheral may skip.
    public var maxLatency: UInt16
    /// Supervision timeouts this host takes, in 10 ms units.
    public var supervisionTimeout: ClosedRange<UInt16>

    /// Creates a policy from an interval range (1.25 ms units), a latency limit in connection events and
    /// a supervision timeout range (10 ms units).
    public init(interval: ClosedRange<UInt16>, maxLatency: UInt16, supervisionTimeout: ClosedRange<UInt16>) {
        self.interval = interval
        self.maxLatency = maxLatency
        self.supervisionTimeout = supervisionTimeout
    }

    /// For flashes, grips, remotes and styluses: intervals of 7.5 ms to 100 ms (a remote that
    /// sleeps may ask for the long end; a flash's trigger wants the short one), at most 4 skipped
    /// events, supervision timeouts of 100 ms to 6 s.
    public static let lowLatency = ConnectionParameterPolicy(interval: 0x0006...0x0050, maxLatency: 4, supervisionTimeout: 0x000A...0x0258)

    /// What `decide` answers a parameter request with.
    package enum Decision: Sendable, Hashable {
        /// Reply with these parameters.
        case accept(LEConnectionParameters)
        /// Refuse (Unacceptable Connection Parameters, 0x3B), saying why.
        case reject(String)
    }

    /// The answer to a request for `requested`: the asked-for interval range narrowed to the
    /// policy's, the latency capped, the timeout taken into the policy's range; refused when the
    /// request breaks the spec's own limits (`LEConnectionParameters.isValid`) or nothing of it
    /// fits.
    package func decide(_ requested: LEConnectionParameters) -> Decision {
        guard requested.isValid else { return .reject("the request is outside the specification's limits") }
        let low = max(requested.intervalMin, interval.lowerBound), high = min(requested.intervalMax, interval.upperBound)
        guard low <= high else {
            return .reject("intervals of \(requested.intervalMin)...\(requested.intervalMax) x 1.25 ms are outside "
                + "\(interval.lowerBound)...\(interval.upperBound)")
        }
        let timeout = min(max(requested.supervisionTimeout, supervisionTimeout.lowerBound), supervisionTimeout.upperBound)
        let narrowed = LEConnectionParameters(intervalMin: low, intervalMax: high, maxLatency: min(requested.maxLatency, maxLatency),
                                              supervisionTimeout: timeout)
        guard narrowed.isValid else {
            return .reject("a supervision timeout of \(timeout) x 10 ms is too short for the interval and latency")
        }
        return .accept(narrowed)
    }
}
