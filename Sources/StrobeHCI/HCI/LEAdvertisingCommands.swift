// Legacy advertising commands (Core Specification Vol 4, Part E, 7.8.5 ... 7.8.9).

/// The legacy advertising PDU type to send.
package struct LEAdvertisingType: RawRepresentable, Sendable, Hashable {
    package var rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Connectable and scannable undirected (ADV_IND).
    package static let connectableUndirected = LEAdvertisingType(rawValue: 0x00)
    /// Connectable high duty cycle directed (ADV_DIRECT_IND).
    package static let connectableDirectedHighDuty = LEAdvertisingType(rawValue: 0x01)
    /// Scannable undirected (ADV_SCAN_IND).
    package static let scannableUndirected = LEAdvertisingType(rawValue: 0x02)
    /// Non connectable undirected (ADV_NONCONN_IND).
    package static let nonConnectableUndirected = LEAdvertisingType(rawValue: 0x03)
    /// Connectable low duty cycle directed (ADV_DIRECT_IND).
    package static let connectableDirectedLowDuty = LEAdvertisingType(rawValue: 0x04)
}

/// HCI_LE_Set_Advertising_Parameters. Intervals are in 0.625 ms units (0x0020 ... 0x4000).
package struct HCILESetAdvertisingParameters: HCICommand {
    package static let opcode = HCIOpcode.leSetAdvertisingParameters

    package var intervalMin: UInt16
    package var intervalMax: UInt16
    package var advertisingType: LEAdvertisingType
    package var ownAddressType: LEOwnAddressType
    package var peerAddressType: LEAddressType
    package var peerAddress: BluetoothAddress
    /// Bit 0: channel 37, bit 1: 38, bit 2: 39.
    package var channelMap: UInt8
    package var filterPolicy: UInt8

    package init(intervalMin: UInt16, intervalMax: UInt16, advertisingType: LEAdvertisingType = .connectableUndirected,
                ownAddressType: LEOwnAddressType = .public, peerAddressType: LEAddressType = .public,
                peerAddress: BluetoothAddress = BluetoothAddress(wire: (0, 0, 0, 0, 0, 0)),
                channelMap: UInt8 = 0x07, filterPolicy: UInt8 = 0) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.advertisingType = advertisingType
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.channelMap = channelMap
        self.filterPolicy = filterPolicy
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(intervalMin: 0, intervalMax: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Advertising_Interval_Min", &intervalMin)
        try walker.field("Advertising_Interval_Max", &intervalMax)
        try walker.field("Advertising_Type", &advertisingType)
        try walker.field("Own_Address_Type", &ownAddressType)
        try walker.field("Peer_Address_Type", &peerAddressType)
        try walker.field("Peer_Address", &peerAddress)
        try walker.field("Advertising_Channel_Map", &channelMap)
        try walker.field("Advertising_Filter_Policy", &filterPolicy)
    }
}

/// Legacy advertising and scan response payloads are at most 31 bytes, sent zero-padded.
public let legacyAdvertisingDataMaximumLength = 31

/// HCI_LE_Set_Advertising_Data.
package struct HCILESetAdvertisingData: HCICommand {
    package static let opcode = HCIOpcode.leSetAdvertisingData

    /// At most 31 bytes (`init?` checks).
    package private(set) var data: [UInt8]

    /// `nil` when `data` is longer than 31 bytes.
    package init?(data: [UInt8]) {
        guard data.count <= legacyAdvertisingDataMaximumLength else { return nil }
        self.data = data
    }

    /// Blank, for a decoder to fill in.
    package init() {
        data = []
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.data("Advertising_Data", &data, maximum: legacyAdvertisingDataMaximumLength, padded: true)
    }
}

/// HCI_LE_Set_Scan_Response_Data.
package struct HCILESetScanResponseData: HCICommand {
    package static let opcode = HCIOpcode.leSetScanResponseData

    /// At most 31 bytes (`init?` checks).
    package private(set) var data: [UInt8]

    /// `nil` when `data` is longer than 31 bytes.
    package init?(data: [UInt8]) {
        guard data.count <= legacyAdvertisingDataMaximumLength else { return nil }
        self.data = data
    }

    /// Blank, for a decoder to fill in.
    package init() {
        data = []
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.data("Scan_Response_Data", &data, maximum: legacyAdvertisingDataMaximumLength, padded: true)
    }
}

/// HCI_LE_Set_Advertising_Enable.
package struct HCILESetAdvertisingEnable: HCICommand {
    package static let opcode = HCIOpcode.leSetAdvertisingEnable

    package var enable: Bool
    package init(enable: Bool) { self.enable = enable }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(enable: false)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Advertising_Enable", &enable)
    }
}

/// HCI_LE_Set_Random_Address: the random address used when a command says own address type
/// random (legacy advertising, scanning, initiating).
package struct HCILESetRandomAddress: HCICommand {
    package static let opcode = HCIOpcode.leSetRandomAddress

    package var address: BluetoothAddress

    package init(address: BluetoothAddress) { self.address = address }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(address: BluetoothAddress(wire: (0, 0, 0, 0, 0, 0)))
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Random_Address", &address)
    }
}
