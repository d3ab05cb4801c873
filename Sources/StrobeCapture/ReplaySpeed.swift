/// How fast an answering replay plays the controller's side of a capture.
public enum ReplaySpeed: Sendable, Hashable, CustomStringConvertible {
    /// The capture's spacing divided by the factor (1 is real time, 10 ten times faster).
    case factor(Double)
    /// No waiting between packets.
    case maximum

    /// The capture's own spacing, `.factor(1)`: the default speed of a `replay:FILE` transport.
    public static let realTime = ReplaySpeed.factor(1)

    /// `N` (a positive number) or `max`.
    public init?(_ text: String) {
        if text == "max" {
            self = .maximum
        } else if let factor = Double(text), factor.isFinite, factor > 0 {
            self = .factor(factor)
        } else {
            return nil
        }
    }

    /// `max`, or the factor (`10`, `2.5`): the text `init?(_:)` parses.
    public var description: String {
        switch self {
        case .maximum: "max"
        case .factor(let factor): factor == factor.rounded() ? String(Int(factor)) : String(factor)
        }
    }

    /// The wait for `microseconds` of capture time, in nanoseconds.
    func nanoseconds(forCaptureMicroseconds microseconds: Int64) -> UInt64 {
        guard case .factor(let factor) = self, microseconds > 0 else { return 0 }
        let nanos = Double(microseconds) * 1000 / factor
        return nanos >= Double(UInt64.max) ? UInt64.max : UInt64(nanos)
    }
}
