/// Error codes carried by an ATT Error Response (Core Specification Vol 3, Part F, 3.4.1.1,
/// and the common profile error codes of the Core Specification Supplement, Part B).
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 1-byte Error Code field of the Error Response.
    public var rawValue: UInt8
    /// Wraps any code, including application errors (0x80...0x9F) and values the stack does not name.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01 Invalid Handle: the handle is not valid on this server.
    public static let invalidHandle = Self(rawValue: 0x01)
    /// 0x02 Read Not Permitted: the attribute cannot be read.
    public static let readNotPermitted = Self(rawValue: 0x02)
    /// 0x03 Write Not Permitted: the attribute cannot be written.
    public static let writeNotPermitted = Self(rawValue: 0x03)
    /// 0x04 Invalid PDU: the request was malformed.
    public static let invalidPDU = Self(rawValue: 0x04)
    /// 0x05 Insufficient Authentication: the link must be authenticated (paired with MITM protection).
    public static let insufficientAuthentication = Self(rawValue: 0x05)
    /// 0x06 Request Not Supported: the server does not support the request.
    public static let requestNotSupported = Self(rawValue: 0x06)
    /// 0x07 Invalid Offset: the offset is past the end of the attribute value.
    public static let invalidOffset = Self(rawValue: 0x07)
    /// 0x08 Insufficient Authorization: the client must be authorized first.
    public static let insufficientAuthorization = Self(rawValue: 0x08)
    /// 0x09 Prepare Queue Full: too many Prepare Write Requests are queued.
    public static let prepareQueueFull = Self(rawValue: 0x09)
    /// 0x0A Attribute Not Found: no attribute in the requested handle range matched.
    public static let attributeNotFound = Self(rawValue: 0x0A)
    /// 0x0B Attribute Not Long: the attribute cannot be read or written with Read Blob or Prepare Write.
    public static let attributeNotLong = Self(rawValue: 0x0B)
    /// 0x0C Encryption Key Size Too Short: the link's encryption key is too short for the attribute.
    public static let encryptionKeySizeTooShort = Self(rawValue: 0x0C)
    /// 0x0D Invalid Attribute Value Length: the value written has the wrong length.
    public static let invalidAttributeValueLength = Self(rawValue: 0x0D)
    /// 0x0E Unlikely Error: the request met an error the server could not otherwise report.
    public static let unlikelyError = Self(rawValue: 0x0E)
    /// 0x0F Insufficient Encryption: the link must be encrypted first.
    public static let insufficientEncryption = Self(rawValue: 0x0F)
    /// 0x10 Unsupported Group Type: the type in a Read By Group Type Request is not a grouping attribute.
    public static let unsupportedGroupType = Self(rawValue: 0x10)
    /// 0x11 Insufficient Resources: the server lacks the resources to complete the request.
    public static let insufficientResources = Self(rawValue: 0x11)
    /// 0x12 Database Out Of Sync: the client's view of the server's database is stale.
    public static let databaseOutOfSync = Self(rawValue: 0x12)
    /// 0x13 Value Not Allowed: the value written is not allowed.
    public static let valueNotAllowed = Self(rawValue: 0x13)
    /// 0xFC Write Request Rejected (common profile error code).
    public static let writeRequestRejected = Self(rawValue: 0xFC)
    /// 0xFD Client Characteristic Configuration Descriptor Improperly Configured (common profile error code).
    public static let cccdImproperlyConfigured = Self(rawValue: 0xFD)
    /// 0xFE Procedure Already in Progress (common profile error code).
    public static let procedureAlreadyInProgress = Self(rawValue: 0xFE)
    /// 0xFF Out of Range (common profile error code).
    public static let outOfRange = Self(rawValue: 0xFF)

    /// 0x80...0x9F are defined by the application (the profile or device).
    public var isApplicationError: Bool { (0x80...0x9F).contains(rawValue) }

    /// The specification's name for the code, e.g. "Read Not Permitted"; "Application Error" for
    /// 0x80...0x9F and "Unknown error" for codes without a name.
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
