// LE Controller commands about the controller itself (Core Specification Vol 4, Part E, 7.8).

/// HCI_LE_Set_Event_Mask: which LE Meta subevents the controller may send (bit n = subevent n + 1).
package struct HCILESetEventMask: HCICommand {
    package static let opcode = HCIOpcode.leSetEventMask
    package var mask: UInt64
    package init(mask: UInt64) { self.mask = mask }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(mask: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("LE_Event_Mask", &mask)
    }
}

/// HCI_LE_Read_Local_Supported_Features.
package struct HCILEReadLocalSupportedFeatures: HCICommand {
    package static let opcode = HCIOpcode.leReadLocalSupportedFeatures
    package init() {}

    package struct ReturnParameters: HCIParameters {
        package var leFeatures: LEFeatures

        package init(leFeatures: LEFeatures) { self.leFeatures = leFeatures }
        package init() { self.init(leFeatures: []) }

        package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
            try walker.field("LE_Features", &leFeatures)
        }
    }
}

/// The controller's LE data buffers: how long one ACL packet to it may be and how many it holds.
/// A length of zero means LE shares the BR/EDR buffers (Read Buffer Size).
package struct LEBufferSize: Sendable, Hashable {
    package var leACLDataPacketLength: UInt16
    package var totalNumLEACLDataPackets: UInt8
    /// Only from LE Read Buffer Size [v2].
    package var isoDataPacketLength: UInt16?
    package var totalNumISODataPackets: UInt8?

    package init(leACLDataPacketLength: UInt16, totalNumLEACLDataPackets: UInt8,
                isoDataPacketLength: UInt16? = nil, totalNumISODataPackets: UInt8? = nil) {
        self.leACLDataPacketLength = leACLDataPacketLength
        self.totalNumLEACLDataPackets = totalNumLEACLDataPackets
        self.isoDataPacketLength = isoDataPacketLength
        self.totalNumISODataPackets = totalNumISODataPackets
    }
}

/// HCI_LE_Read_Buffer_Size [v1].
package struct HCILEReadBufferSizeV1: HCICommand {
    package static let opcode = HCIOpcode.leReadBufferSizeV1
    package init() {}

    package struct ReturnParameters: HCIParameters {
        package var bufferSize = LEBufferSize(leACLDataPacketLength: 0, totalNumLEACLDataPackets: 0)

        package init() {}
        package init(_ bufferSize: LEBufferSize) { self.bufferSize = bufferSize }

        package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
            try walker.field("LE_ACL_Data_Packet_Length", &bufferSize.leACLDataPacketLength)
            try walker.field("Total_Num_LE_ACL_Data_Packets", &bufferSize.totalNumLEACLDataPackets)
        }
    }
}

/// HCI_LE_Read_Buffer_Size [v2]: also the ISO buffers.
package struct HCILEReadBufferSizeV2: HCICommand {
    package static let opcode = HCIOpcode.leReadBufferSizeV2
    package init() {}

    package struct ReturnParameters: HCIParameters {
        package var bufferSize = LEBufferSize(leACLDataPacketLength: 0, totalNumLEACLDataPackets: 0,
                                              isoDataPacketLength: 0, totalNumISODataPackets: 0)

        package init() {}
        package init(_ bufferSize: LEBufferSize) { self.bufferSize = bufferSize }

        package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
            try walker.field("LE_ACL_Data_Packet_Length", &bufferSize.leACLDataPacketLength)
            try walker.field("Total_Num_LE_ACL_Data_Packets", &bufferSize.totalNumLEACLDataPackets)
            var isoLength = bufferSize.isoDataPacketLength ?? 0
            var isoCount = bufferSize.totalNumISODataPackets ?? 0
            try walker.field("ISO_Data_Packet_Length", &isoLength)
            try walker.field("Total_Num_ISO_Data_Packets", &isoCount)
            bufferSize.isoDataPacketLength = isoLength
            bufferSize.totalNumISODataPackets = isoCount
        }
    }
}
