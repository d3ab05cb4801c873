/// Attribute Protocol opcodes (Core Specification Vol 3, Part F, 3.4.8).
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The opcode byte: method in bits 0-5, Command Flag in bit 6, Authentication Signature Flag in bit 7.
    public var rawValue: UInt8
    /// Wraps any byte, including opcodes the stack does not name.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01 Error Response.
    public static let errorResponse = ATTOpcode(rawValue: 0x01)
    /// 0x02 Exchange MTU Request.
    public static let exchangeMTURequest = ATTOpcode(rawValue: 0x02)
    /// 0x03 Exchange MTU Response.
    public static let exchangeMTUResponse = ATTOpcode(rawValue: 0x03)
    /// 0x04 Find Information Request.
    public static let findInformationRequest = ATTOpcode(rawValue: 0x04)
    /// 0x05 Find Information Response.
    public static let findInformationResponse = ATTOpcode(rawValue: 0x05)
    /// 0x06 Find By Type Value Request.
    public static let findByTypeValueRequest = ATTOpcode(rawValue: 0x06)
    /// 0x07 Find By Type Value Response.
    public static let findByTypeValueResponse = ATTOpcode(rawValue: 0x07)
    /// 0x08 Read By Type Request.
    public static let readByTypeRequest = ATTOpcode(rawValue: 0x08)
    /// 0x09 Read By Type Response.
    public static let readByTypeResponse = ATTOpcode(rawValue: 0x09)
    /// 0x0A Read Request.
    public static let readRequest = ATTOpcode(rawValue: 0x0A)
    /// 0x0B Read Response.
    public static let readResponse = ATTOpcode(rawValue: 0x0B)
    /// 0x0C Read Blob Request.
    public static let readBlobRequest = ATTOpcode(rawValue: 0x0C)
    /// 0x0D Read Blob Response.
    public static let readBlobResponse = ATTOpcode(rawValue: 0x0D)
    /// 0x0E Read Multiple Request.
    public static let readMultipleRequest = ATTOpcode(rawValue: 0x0E)
    /// 0x0F Read Multiple Response.
    public static let readMultipleResponse = ATTOpcode(rawValue: 0x0F)
    /// 0x10 Read By Group Type Request.
    public static let readByGroupTypeRequest = ATTOpcode(rawValue: 0x10)
    /// 0x11 Read By Group Type Response.
    public static let readByGroupTypeResponse = ATTOpcode(rawValue: 0x11)
    /// 0x12 Write Request.
    public static let writeRequest = ATTOpcode(rawValue: 0x12)
    /// 0x13 Write Response.
    public static let writeResponse = ATTOpcode(rawValue: 0x13)
    /// 0x16 Prepare Write Request.
    public static let prepareWriteRequest = ATTOpcode(rawValue: 0x16)
    /// 0x17 Prepare Write Response.
    public static let prepareWriteResponse = ATTOpcode(rawValue: 0x17)
    /// 0x18 Execute Write Request.
    public static let executeWriteRequest = ATTOpcode(rawValue: 0x18)
    /// 0x19 Execute Write Response.
    public static let executeWriteResponse = ATTOpcode(rawValue: 0x19)
    /// 0x20 Read Multiple Variable Request.
    public static let readMultipleVariableRequest = ATTOpcode(rawValue: 0x20)
    /// 0x21 Read Multiple Variable Response.
    public static let readMultipleVariableResponse = ATTOpcode(rawValue: 0x21)
    /// 0x23 Multiple Handle Value Notification.
    public static let multipleHandleValueNotification = ATTOpcode(rawValue: 0x23)
    /// 0x1B Handle Value Notification.
    public static let handleValueNotification = ATTOpcode(rawValue: 0x1B)
    /// 0x1D Handle Value Indication.
    public static let handleValueIndication = ATTOpcode(rawValue: 0x1D)
    /// 0x1E Handle Value Confirmation.
    public static let handleValueConfirmation = ATTOpcode(rawValue: 0x1E)
    /// 0x52 Write Command.
    public static let writeCommand = ATTOpcode(rawValue: 0x52)
    /// 0xD2 Signed Write Command.
    public static let signedWriteCommand = ATTOpcode(rawValue: 0xD2)

    /// Bit 6: the PDU is a command (no response is sent).
    public var isCommand: Bool { rawValue & 0x40 != 0 }

    /// Sent by a client to a server: requests, commands and Handle Value Confirmation all have an
    /// even method (the low six bits); responses, notifications and indications an odd one.
    public var isSentByClient: Bool {
        let method = rawValue & 0x3F
        return method % 2 == 0 && method <= 0x22
    }
    /// Bit 7: an authentication signature follows the parameters.
    public var hasSignature: Bool { rawValue & 0x80 != 0 }

    /// Requests expect exactly one response; the bearer allows one outstanding at a time.
    public var isRequest: Bool { Self.responseFor[rawValue] != nil }

    /// A response (Error Response included): what ends the client's outstanding request. The one
    /// place the stack decides this.
    public var isResponse: Bool { self == .errorResponse || Self.requestFor[rawValue] != nil }

    /// The response opcode that completes this request.
    public var response: ATTOpcode? { Self.responseFor[rawValue].map(ATTOpcode.init(rawValue:)) }

    /// Whether the PDU's first parameter is a single attribute handle.
    public var carriesOneHandle: Bool {
        switch self {
        case .readRequest, .readBlobRequest, .writeRequest, .writeCommand, .signedWriteCommand,
             .prepareWriteRequest, .prepareWriteResponse, .handleValueNotification, .handleValueIndication:
            true
        default:
            false
        }
    }

    private static let responseFor: [UInt8: UInt8] = [
        0x02: 0x03, 0x04: 0x05, 0x06: 0x07, 0x08: 0x09, 0x0A: 0x0B, 0x0C: 0x0D, 0x0E: 0x0F,
        0x10: 0x11, 0x12: 0x13, 0x16: 0x17, 0x18: 0x19, 0x20: 0x21,
    ]

    private static let requestFor: [UInt8: UInt8] = Dictionary(uniqueKeysWithValues: responseFor.map { ($1, $0) })

    /// The specification's name and value, e.g. `Read Request (0x0A)`; `Unknown (0x..)` for others.
    public var description: String {
        let names: [UInt8: String] = [
            0x01: "Error Response", 0x02: "Exchange MTU Request", 0x03: "Exchange MTU Response",
            0x04: "Find Information Request", 0x05: "Find Information Response",
            0x06: "Find By Type Value Request", 0x07: "Find By Type Value Response",
            0x08: "Read By Type Request", 0x09: "Read By Type Response", 0x0A: "Read Request",
            0x0B: "Read Response", 0x0C: "Read Blob Request", 0x0D: "Read Blob Response",
            0x0E: "Read Multiple Request", 0x0F: "Read Multiple Response",
            0x10: "Read By Group Type Request", 0x11: "Read By Group Type Response",
            0x12: "Write Request", 0x13: "Write Response", 0x16: "Prepare Write Request",
            0x17: "Prepare Write Response", 0x18: "Execute Write Request", 0x19: "Execute Write Response",
            0x20: "Read Multiple Variable Request", 0x21: "Read Multiple Variable Response",
            0x23: "Multiple Handle Value Notification", 0x1B: "Handle Value Notification",
            0x1D: "Handle Value Indication", 0x1E: "Handle Value Confirmation", 0x52: "Write Command",
            0xD2: "Signed Write Command",
        ]
        let digits = String(rawValue, radix: 16, uppercase: true)
        return "\(names[rawValue] ?? "Unknown") (0x\(digits.count < 2 ? "0" : "")\(digits))"
    }
}
