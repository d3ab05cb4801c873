// LE Controller commands about the controller itself (Core Specification Vol 4, Part E, 7.8).

/// HCI_LE_Set_Event_Mask: which LE Meta subevents the controller may send (bit n = subevent n + 1).
public struct HCILESetEventMask: HCICommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetEventMask
    public var mask: UInt64
    public init(mask: UInt64) { self.mask = mask }
    public func encodeParameters(into writer: inout ByteWriter) { writer.write(mask) }
}

/// HCI_LE_Read_Local_Supported_Features.
public struct HCILEReadLocalSupportedFeatures: HCICommand {
    public static let opcode = HCIOpcode.leReadLocalSupportedFeatures
    public init() {}
    public static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> LEFeatures {
        LEFeatures(rawValue: try reader.u64("LE_Features"))
    }
}

/// The controller's LE data buffers: how long one ACL packet to it may be and how many it holds.
/// A length of zero means LE shares the BR/EDR buffers (Read Buffer Size).
public struct LEBufferSize: Sendable, Hashable {
    public var leACLDataPacketLength: UInt16
    public var totalNumLEACLDataPackets: UInt8
    /// Only from LE Read Buffer Size [v2].
    public var isoDataPacketLength: UInt16?
    public var totalNumISODataPackets: UInt8?

    public init(leACLDataPacketLength: UInt16, totalNumLEACLDataPackets: UInt8,
                isoDataPacketLength: UInt16? = nil, totalNumISODataPackets: UInt8? = nil) {
        self.leACLDataPacketLength = leACLDataPacketLength
        self.totalNumLEACLDataPackets = totalNumLEACLDataPackets
        self.isoDataPacketLength = isoDataPacketLength
        self.totalNumISODataPackets = totalNumISODataPackets
    }
}

/// HCI_LE_Read_Buffer_Size [v1].
public struct HCILEReadBufferSizeV1: HCICommand {
    public static let opcode = HCIOpcode.leReadBufferSizeV1
    public init() {}
    public static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> LEBufferSize {
        LEBufferSize(
            leACLDataPacketLength: try reader.u16("LE_ACL_Data_Packet_Length"),
            totalNumLEACLDataPackets: try reader.u8("Total_Num_LE_ACL_Data_Packets"))
    }
}

/// HCI_LE_Read_Buffer_Size [v2]: also the ISO buffers.
public struct HCILEReadBufferSizeV2: HCICommand {
    public static let opcode = HCIOpcode.leReadBufferSizeV2
    public init() {}
    public static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> LEBufferSize {
        LEBufferSize(
            leACLDataPacketLength: try reader.u16("LE_ACL_Data_Packet_Length"),
            totalNumLEACLDataPackets: try reader.u8("Total_Num_LE_ACL_Data_Packets"),
            isoDataPacketLength: try reader.u16("ISO_Data_Packet_Length"),
            totalNumISODataPackets: try reader.u8("Total_Num_ISO_Data_Packets"))
    }
}
