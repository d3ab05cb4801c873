// Informational parameters (Core Specification Vol 4, Part E, 7.4) and the two Controller &
// Baseband commands the init sequence uses (7.3).

/// HCI_Reset.
package struct HCIReset: HCICommand {
    package typealias ReturnParameters = Void
    package static let opcode = HCIOpcode.reset
    package init() {}
}

/// HCI_Set_Event_Mask: which events the controller may send (bit n = event code n + 1).
package struct HCISetEventMask: HCICommand {
    package typealias ReturnParameters = Void
    package static let opcode = HCIOpcode.setEventMask
    package var mask: UInt64
    package init(mask: UInt64) { self.mask = mask }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(mask: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Event_Mask", &mask)
    }
}

/// HCI_Read_Local_Version_Information.
package struct HCIReadLocalVersionInformation: HCICommand {
    package static let opcode = HCIOpcode.readLocalVersionInformation
    package init() {}
    package static func decodeReturnParameters(
        _ reader: inout HCIFieldReader
    ) throws(HCIError) -> LocalVersionInformation {
        LocalVersionInformation(
            hciVersion: try reader.u8("HCI_Version"),
            hciSubversion: try reader.u16("HCI_Subversion"),
            lmpVersion: try reader.u8("LMP_Version"),
            companyIdentifier: try reader.u16("Company_Identifier"),
            lmpSubversion: try reader.u16("LMP_Subversion"))
    }
}

/// The controller's version numbers and manufacturer.
package struct LocalVersionInformation: Sendable, Hashable {
    /// The Core Specification version of the HCI (Assigned Numbers: 0x0C = 5.3, 0x0D = 5.4).
    package var hciVersion: UInt8
    package var hciSubversion: UInt16
    package var lmpVersion: UInt8
    /// The manufacturer's company identifier (Assigned Numbers).
    package var companyIdentifier: UInt16
    package var lmpSubversion: UInt16

    package init(hciVersion: UInt8, hciSubversion: UInt16, lmpVersion: UInt8, companyIdentifier: UInt16, lmpSubversion: UInt16) {
        self.hciVersion = hciVersion
        self.hciSubversion = hciSubversion
        self.lmpVersion = lmpVersion
        self.companyIdentifier = companyIdentifier
        self.lmpSubversion = lmpSubversion
    }
}

/// HCI_Read_BD_ADDR.
package struct HCIReadBDAddr: HCICommand {
    package static let opcode = HCIOpcode.readBDAddr
    package init() {}
    package static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> BluetoothAddress {
        try reader.address("BD_ADDR")
    }
}

/// HCI_Read_Local_Supported_Commands.
package struct HCIReadLocalSupportedCommands: HCICommand {
    package static let opcode = HCIOpcode.readLocalSupportedCommands
    package init() {}
    package static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> HCISupportedCommands {
        HCISupportedCommands(octets: try reader.bytes("Supported_Commands", count: 64))
    }
}

/// HCI_Read_Local_Supported_Features (LMP features page 0).
package struct HCIReadLocalSupportedFeatures: HCICommand {
    package static let opcode = HCIOpcode.readLocalSupportedFeatures
    package init() {}
    package static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> LMPFeatures {
        LMPFeatures(rawValue: try reader.u64("LMP_Features"))
    }
}

/// HCI_Read_Buffer_Size: the BR/EDR ACL buffers, which LE shares when the controller has no
/// separate LE buffers.
package struct HCIReadBufferSize: HCICommand {
    package static let opcode = HCIOpcode.readBufferSize
    package init() {}

    package struct ReturnParameters: Sendable, Hashable {
        package var aclDataPacketLength: UInt16
        package var synchronousDataPacketLength: UInt8
        package var totalNumACLDataPackets: UInt16
        package var totalNumSynchronousDataPackets: UInt16
    }

    package static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> ReturnParameters {
        ReturnParameters(
            aclDataPacketLength: try reader.u16("ACL_Data_Packet_Length"),
            synchronousDataPacketLength: try reader.u8("Synchronous_Data_Packet_Length"),
            totalNumACLDataPackets: try reader.u16("Total_Num_ACL_Data_Packets"),
            totalNumSynchronousDataPackets: try reader.u16("Total_Num_Synchronous_Data_Packets"))
    }
}
