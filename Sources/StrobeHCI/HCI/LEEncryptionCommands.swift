// Encrypting LE links (Core Specification Vol 4, Part E, 7.8.24 to 7.8.26).

/// HCI_LE_Enable_Encryption (central): encrypt with the LTK that Rand and EDIV name. Answered
/// by Command Status; Encryption Change (or Encryption Key Refresh Complete) follows.
package struct HCILEEnableEncryption: HCICommand {
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

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(connectionHandle: 0, random: 0, encryptedDiversifier: 0, longTermKey: [])
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("Random_Number", &random)
        try walker.field("Encrypted_Diversifier", &encryptedDiversifier)
        try walker.key("Long_Term_Key", &longTermKey)
    }
}

/// HCI_LE_Long_Term_Key_Request_Reply (peripheral). Returns the connection handle.
package struct HCILELongTermKeyRequestReply: HCICommand {
    package typealias ReturnParameters = HCIConnectionHandleReturnParameters
    package static let opcode = HCIOpcode.leLongTermKeyRequestReply

    package var connectionHandle: ConnectionHandle
    package var longTermKey: [UInt8]

    package init(connectionHandle: ConnectionHandle, longTermKey: [UInt8]) {
        self.connectionHandle = connectionHandle
        self.longTermKey = longTermKey
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(connectionHandle: 0, longTermKey: [])
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.key("Long_Term_Key", &longTermKey)
    }
}

/// HCI_LE_Long_Term_Key_Request_Negative_Reply (peripheral): no key for this EDIV and Rand.
/// Returns the connection handle.
package struct HCILELongTermKeyRequestNegativeReply: HCICommand {
    package typealias ReturnParameters = HCIConnectionHandleReturnParameters
    package static let opcode = HCIOpcode.leLongTermKeyRequestNegativeReply

    package var connectionHandle: ConnectionHandle

    package init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(connectionHandle: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
    }
}
