/// What went wrong with a Bluetooth LEDnet light.
public enum LEDnetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A state notification that is not the 12-byte `66 ... 99` frame: what was wrong.
    case malformedState(String)
    /// The peer has none of the write/notify characteristic pairs these lights use.
    case notALight(address: String, services: [String])

    /// What went wrong, as a sentence for a user.
    public var description: String {
        switch self {
        case .malformedState(let reason): "malformed LEDnet state: \(reason)"
        case .notALight(let address, let services):
            "\(address) has no LEDnet write and notify characteristics (services: \(services.joined(separator: ", ")))"
        }
    }
}
