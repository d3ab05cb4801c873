/// The reason a Pairing Failed command carries (Core Specification Vol 3, Part H, 3.5.5). A
/// value the spec does not define is kept as it came.
public struct SMPPairingFailedReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The reason octet.
    public let rawValue: UInt8
    /// Wraps any reason octet, defined by the specification or not.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01 Passkey Entry Failed.
    public static let passkeyEntryFailed = Self(rawValue: 0x01)
    /// 0x02 OOB Not Available.
    public static let oobNotAvailable = Self(rawValue: 0x02)
    /// 0x03 Authentication Requirements.
    public static let authenticationRequirements = Self(rawValue: 0x03)
    /// 0x04 Confirm Value Failed.
    public static let confirmValueFailed = Self(rawValue: 0x04)
    /// 0x05 Pairing Not Supported.
    public static let pairingNotSupported = Self(rawValue: 0x05)
    /// 0x06 Encryption Key Size.
    public static let encryptionKeySize = Self(rawValue: 0x06)
    /// 0x07 Command Not Supported.
    public static let commandNotSupported = Self(rawValue: 0x07)
    /// 0x08 Unspecified Reason.
    public static let unspecifiedReason = Self(rawValue: 0x08)
    /// 0x09 Repeated Attempts.
    public static let repeatedAttempts = Self(rawValue: 0x09)
    /// 0x0A Invalid Parameters.
    public static let invalidParameters = Self(rawValue: 0x0A)
    /// 0x0B DHKey Check Failed.
    public static let dhKeyCheckFailed = Self(rawValue: 0x0B)
    /// 0x0C Numeric Comparison Failed.
    public static let numericComparisonFailed = Self(rawValue: 0x0C)
    /// 0x0F Key Rejected.
    public static let keyRejected = Self(rawValue: 0x0F)

    /// The specification's name of the reason, e.g. "Pairing Not Supported", or "reason 0xNN".
    public var description: String {
        let name: String = switch rawValue {
        case 0x01: "Passkey Entry Failed"
        case 0x02: "OOB Not Available"
        case 0x03: "Authentication Requirements"
        case 0x04: "Confirm Value Failed"
        case 0x05: "Pairing Not Supported"
        case 0x06: "Encryption Key Size"
        case 0x07: "Command Not Supported"
        case 0x08: "Unspecified Reason"
        case 0x09: "Repeated Attempts"
        case 0x0A: "Invalid Parameters"
        case 0x0B: "DHKey Check Failed"
        case 0x0C: "Numeric Comparison Failed"
        case 0x0D: "BR/EDR pairing in progress"
        case 0x0E: "Cross-transport Key Derivation/Generation not allowed"
        case 0x0F: "Key Rejected"
        default: "reason 0x\(String(rawValue, radix: 16, uppercase: true))"
        }
        return name
    }
}
