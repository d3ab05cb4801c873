/// Error codes carried by an ATT Error Response (Core Specification Vol 3, Part F, 3.4.1.1,
/// and the common profile error codes of the Core Specification Supplement, Part B).
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let invalidHandle = Self(rawValue: 0x01)
    public static let readNotPermitted = Self(rawValue: 0x02)
    public static let writeNotPermitted = Self(rawValue: 0x03)
    public static let invalidPDU = Self(rawValue: 0x04)
    public static let insufficientAuthentication = Self(rawValue: 0x05)
    public static let requestNotSupported = Self(rawValue: 0x06)
    public static let invalidOffset = Self(rawValue: 0x07)
    public static let insufficientAuthorization = Self(rawValue: 0x08)
    public static let prepareQueueFull = Self(rawValue: 0x09)
    public static let attributeNotFound = Self(rawValue: 0x0A)
    public static let attributeNotLong = Self(rawValue: 0x0B)
    public static let encryptionKeySizeTooShort = Self(rawValue: 0x0C)
    public static let invalidAttributeValueLength = Self(rawValue: 0x0D)
    public static let unlikelyError = Self(rawValue: 0x0E)
    public static let insufficientEncryption = Self(rawValue: 0x0F)
    public static let unsupportedGroupType = Self(rawValue: 0x10)
    public static let insufficientResources = Self(rawValue: 0x11)
    public static let databaseOutOfSync = Self(rawValue: 0x12)
    public static let valueNotAllowed = Self(rawValue: 0x13)
    public static let writeRequestRejected = Self(rawValue: 0xFC)
    public static let cccdImproperlyConfigured = Self(rawValue: 0xFD)
    public static let procedureAlreadyInProgress = Self(rawValue: 0xFE)
    public static let outOfRange = Self(rawValue: 0xFF)

    /// 0x80...0x9F are defined by the application (the profile or device).
    public var isApplicationError: Bool { (0x80...0x9F).contains(rawValue) }

    public var name: String {
        switch rawValue {
        case 0x01: "Invalid Handle"
        case 0x02: "Read Not Permitted"
        case 0x03: "Write Not Permitted"
        case 0x04: "Invalid PDU"
        case 0x05: "Insufficient Authentication"
        case 0x06: "Request Not Supported"
        case 0x07: "Invalid Offset"
        case 0x08: "Insufficient Authorization"
        case 0x09: "Prepare Queue Full"
        case 0x0A: "Attribute Not Found"
        case 0x0B: "Attribute Not Long"
        case 0x0C: "Encryption Key Size Too Short"
        case 0x0D: "Invalid Attribute Value Length"
        case 0x0E: "Unlikely Error"
        case 0x0F: "Insufficient Encryption"
        case 0x10: "Unsupported Group Type"
        case 0x11: "Insufficient Resources"
        case 0x12: "Database Out Of Sync"
        case 0x13: "Value Not Allowed"
        case 0x80...0x9F: "Application Error"
        case 0xFC: "Write Request Rejected"
        case 0xFD: "Client Characteristic Configuration Descriptor Improperly Configured"
        case 0xFE: "Procedure Already in Progress"
        case 0xFF: "Out of Range"
        default: "Unknown error"
        }
    }

    /// `Read Not Permitted (0x02)`.
    public var description: String {
        let digits = String(rawValue, radix: 16, uppercase: true)
        return "\(name) (0x\(digits.count < 2 ? "0" : "")\(digits))"
    }
}
