// Encrypting LE links (Core Specification Vol 4, Part E, 7.8.24 to 7.8.26).

/// HCI_LE_Enable_Encryption (central): encrypt with the LTK that Rand and EDIV name. Answered
/// by Command Status; Encryption Change (or Encryption Key Refresh Complete) follows.
public struct HCILEEnableEncryption: HCICommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leEnableEncryption
    public static let completion = HCICommandCompletion.commandStatus

    public var connectionHandle: ConnectionHandle
    public var random: UInt64
    public var encryptedDiversifier: UInt16
    /// 16 octets, least significant first.
    public var longTermKey: [UInt8]

    public init(connectionHandle: ConnectionHandle, random: UInt64, encryptedDiversifier: UInt16, longTermKey: [UInt8]) {
        self.connectionHandle = connectionHandle
        self.random = random
        self.encryptedDiversifier = encryptedDiversifier
        self.longTermKey = longTermKey
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(connectionHandle)
        writer.write(random)
        writer.write(encryptedDiversifier)
        writer.write(contentsOf: longTermKey.count == 16 ? longTermKey : [UInt8](repeating: 0, count: 16))
    }
}

/// HCI_LE_Long_Term_Key_Request_Reply (peripheral). Returns the connection handle.
public struct HCILELongTermKeyRequestReply: HCICommand {
    public static let opcode = HCIOpcode.leLongTermKeyRequestReply

    public var connectionHandle: ConnectionHandle
    public var longTermKey: [UInt8]

    public init(connectionHandle: ConnectionHandle, longTermKey: [UInt8]) {
        self.connectionHandle = connectionHandle
        self.longTermKey = longTermKey
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(connectionHandle)
        writer.write(contentsOf: longTermKey.count == 16 ? longTermKey : [UInt8](repeating: 0, count: 16))
    }

    public static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> UInt16 {
        try reader.u16("Connection_Handle")
    }
}

/// HCI_LE_Long_Term_Key_Request_Negative_Reply (peripheral): no key for this EDIV and Rand.
/// Returns the connection handle.
public struct HCILELongTermKeyRequestNegativeReply: HCICommand {
    public static let opcode = HCIOpcode.leLongTermKeyRequestNegativeReply

    public var connectionHandle: ConnectionHandle

    public init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }

    public func encodeParameters(into writer: inout ByteWriter) { writer.write(connectionHandle) }

    public static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> UInt16 {
        try reader.u16("Connection_Handle")
    }
}
