// Informational parameters (Core Specification Vol 4, Part E, 7.4) and the two Controller &
// Baseband commands the init sequence uses (7.3).

/// HCI_Reset.
public struct HCIReset: HCICommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.reset
    public init() {}
}

/// HCI_Set_Event_Mask: which events the controller may send (bit n = event code n + 1).
public struct HCISetEventMask: HCICommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.setEventMask
    public var mask: UInt64
    public init(mask: UInt64) { self.mask = mask }
    public func encodeParameters(into writer: inout ByteWriter) { writer.write(mask) }
}

/// HCI_Read_Local_Version_Information.
public struct HCIReadLocalVersionInformation: HCICommand {
    public static let opcode = HCIOpcode.readLocalVersionInformation
    public init() {}
    public static func decodeReturnParameters(
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
public struct LocalVersionInformation: Sendable, Hashable {
    /// The Core Specification version of the HCI (Assigned Numbers: 0x0C = 5.3, 0x0D = 5.4).
    public var hciVersion: UInt8
    public var hciSubversion: UInt16
    public var lmpVersion: UInt8
    /// The manufacturer's company identifier (Assigned Numbers).
    public var companyIdentifier: UInt16
    public var lmpSubversion: UInt16

    public init(hciVersion: UInt8, hciSubversion: UInt16, lmpVersion: UInt8, companyIdentifier: UInt16, lmpSubversion: UInt16) {
        self.hciVersion = hciVersion
        self.hciSubversion = hciSubversion
        self.lmpVersion = lmpVersion
        self.companyIdentifier = companyIdentifier
        self.lmpSubversion = lmpSubversion
    }
}

/// HCI_Read_BD_ADDR.
public struct HCIReadBDAddr: HCICommand {
    public static let opcode = HCIOpcode.readBDAddr
    public init() {}
    public static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> BluetoothAddress {
        try reader.address("BD_ADDR")
    }
}

/// HCI_Read_Local_Supported_Commands.
public struct HCIReadLocalSupportedCommands: HCICommand {
    public static let opcode = HCIOpcode.readLocalSupportedCommands
    public init() {}
    public static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> HCISupportedCommands {
        HCISupportedCommands(octets: try reader.bytes("Supported_Commands", count: 64))
    }
}

/// HCI_Read_Local_Supported_Features (LMP features page 0).
public struct HCIReadLocalSupportedFeatures: HCICommand {
    public static let opcode = HCIOpcode.readLocalSupportedFeatures
    public init() {}
    public static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> LMPFeatures {
        LMPFeatures(rawValue: try reader.u64("LMP_Features"))
    }
}

/// HCI_Read_Buffer_Size: the BR/EDR ACL buffers, which LE shares when the controller has no
/// separate LE buffers.
public struct HCIReadBufferSize: HCICommand {
    public static let opcode = HCIOpcode.readBufferSize
    public init() {}

    public struct ReturnParameters: Sendable, Hashable {
        public var aclDataPacketLength: UInt16
        public var synchronousDataPacketLength: UInt8
        public var totalNumACLDataPackets: UInt16
        public var totalNumSynchronousDataPackets: UInt16
    }

    public static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> ReturnParameters {
        ReturnParameters(
            aclDataPacketLength: try reader.u16("ACL_Data_Packet_Length"),
            synchronousDataPacketLength: try reader.u8("Synchronous_Data_Packet_Length"),
            totalNumACLDataPackets: try reader.u16("Total_Num_ACL_Data_Packets"),
            totalNumSynchronousDataPackets: try reader.u16("Total_Num_Synchronous_Data_Packets"))
    }
}
