// Encrypting LE links (Core Specification Vol 4, Part E, 7.8.24 to 7.8.26).

/// HCI_LE_Enable_Encryption (central): encrypt with the LTK that Rand and EDIV name. Answered
/// by Command Status; Encryption Change (or Encryption Key Refresh Complete) follows.
package struct HCILEEnableEncryption: HCICommand {
    package typealias ReturnParameters = Void
    package static let opcode = HCIOpcode.leEnableEncryption
    package static let completion = HCICommandCompletion.commandStatus

    package var connectionHandle: ConnectionHandle
    package var random: UInt64
    package var encryptedDiversifier: UInt16
    /// 16 octets, least significant first.
    package var longTermKey: [UInt8]

    package init(connectionHandle: ConnectionHandle, random: UInt64, encryptedDiversifier: UInt16, longTermKey: [UInt8]) {
        self.connectionHandle = connectionHandle
        self.random = random
        self.encryptedDiversifier = encryptedDiversifier
        self.longTermKey = longTermKey
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(connectionHandle)
        writer.write(random)
        writer.write(encryptedDiversifier)
        writer.write(contentsOf: longTermKey.count == 16 ? longTermKey : [UInt8](repeating: 0, count: 16))
    }
}

/// HCI_LE_Long_Term_Key_Request_Reply (peripheral). Returns the connection handle.
package struct HCILELongTermKeyRequestReply: HCICommand {
    package static let opcode = HCIOpcode.leLongTermKeyRequestReply

    package var connectionHandle: ConnectionHandle
    package var longTermKey: [UInt8]

    package init(connectionHandle: ConnectionHandle, longTermKey: [UInt8]) {
        self.connectionHandle = connectionHandle
        self.longTermKey = longTermKey
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(connectionHandle)
        writer.write(contentsOf: longTermKey.count == 16 ? longTermKey : [UInt8](repeating: 0, count: 16))
    }

    package static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> UInt16 {
        try reader.u16("Connection_Handle")
    }
}

/// HCI_LE_Long_Term_Key_Request_Negative_Reply (peripheral): no key for this EDIV and Rand.
/// Returns the connection handle.
package struct HCILELongTermKeyRequestNegativeReply: HCICommand {
    package static let opcode = HCIOpcode.leLongTermKeyRequestNegativeReply

    package var connectionHandle: ConnectionHandle

    package init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }

    package func encodeParameters(into writer: inout ByteWriter) { writer.write(connectionHandle) }

    package static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> UInt16 {
        try reader.u16("Connection_Handle")
    }
}
