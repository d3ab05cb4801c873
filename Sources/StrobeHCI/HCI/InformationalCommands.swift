// Informational parameters (Core Specification Vol 4, Part E, 7.4) and the two Controller &
// Baseband commands the init sequence uses (7.3).

/// HCI_Reset.
package struct HCIReset: HCICommand {
    package static let opcode = HCIOpcode.reset
    package init() {}
}

/// HCI_Set_Event_Mask: which events the controller may send (bit n = event code n + 1).
package struct HCISetEventMask: HCICommand {
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
    package typealias ReturnParameters = LocalVersionInformation
    package static let opcode = HCIOpcode.readLocalVersionInformation
    package init() {}
}

/// The controller's version numbers and manufacturer (Read Local Version Information's return
/// parameters).
package struct LocalVersionInformation: HCIParameters {
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

    package init() {
        self.init(hciVersion: 0, hciSubversion: 0, lmpVersion: 0, companyIdentifier: 0, lmpSubversion: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("HCI_Version", &hciVersion)
        try walker.field("HCI_Subversion", &hciSubversion)
        try walker.field("LMP_Version", &lmpVersion)
        try walker.field("Company_Identifier", &companyIdentifier)
        try walker.field("LMP_Subversion", &lmpSubversion)
    }
}

/// HCI_Read_BD_ADDR.
package struct HCIReadBDAddr: HCICommand {
    package static let opcode = HCIOpcode.readBDAddr
    package init() {}

    package struct ReturnParameters: HCIParameters {
        package var bdAddr: BluetoothAddress

        package init(bdAddr: BluetoothAddress) { self.bdAddr = bdAddr }
        package init() { self.init(bdAddr: BluetoothAddress(wire: (0, 0, 0, 0, 0, 0))) }

        package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
            try walker.field("BD_ADDR", &bdAddr)
        }
    }
}

/// HCI_Read_Local_Supported_Commands.
package struct HCIReadLocalSupportedCommands: HCICommand {
    package static let opcode = HCIOpcode.readLocalSupportedCommands
    package init() {}

    package struct ReturnParameters: HCIParameters {
        package var supportedCommands: HCISupportedCommands

        package init(supportedCommands: HCISupportedCommands) { self.supportedCommands = supportedCommands }
        package init() { self.init(supportedCommands: HCISupportedCommands()) }

        package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
            try walker.field("Supported_Commands", &supportedCommands)
        }
    }
}

/// HCI_Read_Local_Supported_Features (LMP features page 0).
package struct HCIReadLocalSupportedFeatures: HCICommand {
    package static let opcode = HCIOpcode.readLocalSupportedFeatures
    package init() {}

    package struct ReturnParameters: HCIParameters {
        package var lmpFeatures: LMPFeatures

        package init(lmpFeatures: LMPFeatures) { self.lmpFeatures = lmpFeatures }
        package init() { self.init(lmpFeatures: []) }

        package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
            try walker.field("LMP_Features", &lmpFeatures)
        }
    }
}

/// HCI_Read_Buffer_Size: the BR/EDR ACL buffers, which LE shares when the controller has no
/// separate LE buffers.
package struct HCIReadBufferSize: HCICommand {
    package static let opcode = HCIOpcode.readBufferSize
    package init() {}

    package struct ReturnParameters: HCIParameters {
        package var aclDataPacketLength: UInt16 = 0
        package var synchronousDataPacketLength: UInt8 = 0
        package var totalNumACLDataPackets: UInt16 = 0
        package var totalNumSynchronousDataPackets: UInt16 = 0

        package init() {}

        package init(aclDataPacketLength: UInt16, synchronousDataPacketLength: UInt8, totalNumACLDataPackets: UInt16,
                     totalNumSynchronousDataPackets: UInt16) {
            self.aclDataPacketLength = aclDataPacketLength
            self.synchronousDataPacketLength = synchronousDataPacketLength
            self.totalNumACLDataPackets = totalNumACLDataPackets
            self.totalNumSynchronousDataPackets = totalNumSynchronousDataPackets
        }

        package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
            try walker.field("ACL_Data_Packet_Length", &aclDataPacketLength)
            try walker.field("Synchronous_Data_Packet_Length", &synchronousDataPacketLength)
            try walker.field("Total_Num_ACL_Data_Packets", &totalNumACLDataPackets)
            try walker.field("Total_Num_Synchronous_Data_Packets", &totalNumSynchronousDataPackets)
        }
    }
}
