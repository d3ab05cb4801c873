/// The Battery Level characteristic (`2A19` in the Battery service `180F`): one byte, a percentage.
public struct BatteryLevel: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The charge remaining, in percent (0...100).
    public let percent: UInt8

    /// `nil` outside 0...100.
    public init?(percent: UInt8) {
        guard percent <= 100 else { return nil }
        self.percent = percent
    }

    /// Decodes the characteristic value: exactly one byte, 0...100.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(BatteryLevelError) {
        guard bytes.count == 1 else { throw .unexpectedLength(bytes.count) }
        guard let level = BatteryLevel(percent: bytes[0]) else { throw .outOfRange(bytes[0]) }
        self = level
    }

    /// The characteristic value, for simulated devices.
    public var encoded: [UInt8] { [percent] }

    /// Orders levels by charge: the lower percentage is less.
    public static func < (lhs: BatteryLevel, rhs: BatteryLevel) -> Bool { lhs.percent < rhs.percent }

    /// The level as a percentage, e.g. `85%`.
    public var description: String { "\(percent)%" }
}

/// What was wrong with a Battery Level value.
public enum BatteryLevelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value is not one byte long.
    case unexpectedLength(Int)
    /// The byte is above 100.
    case outOfRange(UInt8)

    /// A one-line message that names the bad length or value.
    public var description: String {
        switch self {
        case .unexpectedLength(let length): "battery level must be 1 byte, got \(length)"
        case .outOfRange(let value): "battery level \(value) is outside 0...100"
        }
    }
}
