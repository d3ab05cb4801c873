/// What went wrong on the LIFX LAN protocol: a datagram that is no LIFX message, or a socket
/// the system refused.
public enum LIFXLANError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A datagram that could not be decoded: what was wrong with it.
    case malformed(String)
    /// A socket call failed: which call, and the errno it set.
    case socket(call: String, errno: Int32)
    /// A host that is no dotted-decimal IPv4 address.
    case badAddress(String)
    /// The light is not known to this backend (never discovered).
    case unknownLight(String)

    /// What went wrong, as a sentence for a user.
    public var description: String {
        switch self {
        case .malformed(let reason): "malformed LIFX message: \(reason)"
        case .socket(let call, let errno): "the UDP socket failed: \(call) (errno \(errno))"
        case .badAddress(let text): "'\(text)' is no IPv4 address"
        case .unknownLight(let id): "light \(id) was not discovered"
        }
    }
}
