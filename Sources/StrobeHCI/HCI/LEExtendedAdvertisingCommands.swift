/// Advertising_Event_Properties of LE Set Extended Advertising Parameters (Vol 4, Part E, 7.8.53).
package struct LEAdvertisingEventProperties: OptionSet, Sendable, Hashable {
    package var rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    package static let connectable = Self(rawValue: 1 << 0)
    package static let scannable = Self(rawValue: 1 << 1)
    package static let directed = Self(rawValue: 1 << 2)
    package static let highDutyCycleDirected = Self(rawValue: 1 << 3)
    /// Legacy PDUs (ADV_IND and friends), which every scanner hears, legacy or extended.
    package static let legacy = Self(rawValue: 1 << 4)
    package static let anonymous = Self(rawValue: 1 << 5)
    package static let includeTxPower = Self(rawValue: 1 << 6)

    /// ADV_IND through the extended commands.
    package static let legacyConnectableScannable: Self = [.legacy, .connectable, .scannable]
}

/// HCI_LE_Set_Extended_Advertising_Parameters [v1]. Intervals are in 0.625 ms units
/// (0x000020 ... 0xFFFFFF). Returns the TX power the controller selected, in dBm.
package struct HCILESetExtendedAdvertisingParameters: HCICommand {
    package static let opcode = HCIOpcode.leSetExtendedAdvertisingParameters

    package var advertisingHandle: UInt8
    package var properties: LEAdvertisingEventProperties
    package var intervalMin: UInt32
    package var intervalMax: UInt32
    package var channelMap: UInt8
    package var ownAddressType: LEOwnAddressType
    package var peerAddressType: LEAddressType
    package var peerAddress: BluetoothAddress
    package var filterPolicy: UInt8
    /// 0x7F: no preference.
    package var txPower: Int8
    package var primaryPHY: UInt8
    package var secondaryMaxSkip: UInt8
    package var secondaryPHY: UInt8
    package var advertisingSID: UInt8
    package var scanRequestNotification: Bool

    package init(advertisingHandle: UInt8 = 0, properties: LEAdvertisingEventProperties = .legacyConnectableScannable,
                intervalMin: UInt32, intervalMax: UInt32, channelMap: UInt8 = 0x07,
                ownAddressType: LEOwnAddressType = .public, peerAddressType: LEAddressType = .public,
                peerAddress: BluetoothAddress = BluetoothAddress(wire: (0, 0, 0, 0, 0, 0)), filterPolicy: UInt8 = 0,
                txPower: Int8 = 0x7F, primaryPHY: UInt8 = 0x01, secondaryMaxSkip: UInt8 = 0, secondaryPHY: UInt8 = 0x01,
                advertisingSID: UInt8 = 0, scanRequestNotification: Bool = false) {
        self.advertisingHandle = advertisingHandle
        self.properties = properties
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.channelMap = channelMap
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.filterPolicy = filterPolicy
        self.txPower = txPower
        self.primaryPHY = primaryPHY
        self.secondaryMaxSkip = secondaryMaxSkip
        self.secondaryPHY = secondaryPHY
        self.advertisingSID = advertisingSID
        self.scanRequestNotification = scanRequestNotification
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(intervalMin: 0, intervalMax: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Advertising_Handle", &advertisingHandle)
        try walker.field("Advertising_Event_Properties", &properties)
        try walker.uint24("Primary_Advertising_Interval_Min", &intervalMin)
        try walker.uint24("Primary_Advertising_Interval_Max", &intervalMax)
        try walker.field("Primary_Advertising_Channel_Map", &channelMap)
        try walker.field("Own_Address_Type", &ownAddressType)
        try walker.field("Peer_Address_Type", &peerAddressType)
        try walker.field("Peer_Address", &peerAddress)
        try walker.field("Advertising_Filter_Policy", &filterPolicy)
        try walker.field("Advertising_TX_Power", &txPower)
        try walker.field("Primary_Advertising_PHY", &primaryPHY)
        try walker.field("Secondary_Advertising_Max_Skip", &secondaryMaxSkip)
        try walker.field("Secondary_Advertising_PHY", &secondaryPHY)
        try walker.field("Advertising_SID", &advertisingSID)
        try walker.field("Scan_Request_Notification_Enable", &scanRequestNotification)
    }

    package struct ReturnParameters: HCIParameters {
        /// dBm.
        package var selectedTxPower: Int8

        package init(selectedTxPower: Int8) { self.selectedTxPower = selectedTxPower }
        package init() { self.init(selectedTxPower: 0) }

        package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
            try walker.field("Selected_TX_Power", &selectedTxPower)
        }
    }
}

/// HCI_LE_Set_Extended_Advertising_Data and HCI_LE_Set_Extended_Scan_Response_Data, sent whole
/// (Operation 0x03, complete data). Legacy advertising sets take at most 31 bytes.
package struct HCILESetExtendedAdvertisingData: HCICommand {
    package static let opcode = HCIOpcode.leSetExtendedAdvertisingData

    package var advertisingHandle: UInt8
    /// At most 251 bytes (`init?` checks).
    package private(set) var data: [UInt8]

    /// `nil` when `data` does not fit in one command (251 bytes).
    package init?(advertisingHandle: UInt8 = 0, data: [UInt8]) {
        guard data.count <= 251 else { return nil }
        self.advertisingHandle = advertisingHandle
        self.data = data
    }

    /// Blank, for a decoder to fill in.
    package init() {
        advertisingHandle = 0
        data = []
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Advertising_Handle", &advertisingHandle)
        try walker.constant("Operation", UInt8(0x03))  // complete extended advertising data
        try walker.constant("Fragment_Preference", UInt8(0x01))  // the controller should not fragment
        try walker.data("Advertising_Data", &data)
    }
}

/// HCI_LE_Set_Extended_Scan_Response_Data, sent whole.
package struct HCILESetExtendedScanResponseData: HCICommand {
    package static let opcode = HCIOpcode.leSetExtendedScanResponseData

    package var advertisingHandle: UInt8
    /// At most 251 bytes (`init?` checks).
    package private(set) var data: [UInt8]

    package init?(advertisingHandle: UInt8 = 0, data: [UInt8]) {
        guard data.count <= 251 else { return nil }
        self.advertisingHandle = advertisingHandle
        self.data = data
    }

    /// Blank, for a decoder to fill in.
    package init() {
        advertisingHandle = 0
        data = []
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Advertising_Handle", &advertisingHandle)
        try walker.constant("Operation", UInt8(0x03))  // complete scan response data
        try walker.constant("Fragment_Preference", UInt8(0x01))  // the controller should not fragment
        try walker.data("Scan_Response_Data", &data)
    }
}

/// HCI_LE_Set_Extended_Advertising_Enable for one advertising set, with no duration or event limit.
package struct HCILESetExtendedAdvertisingEnable: HCICommand {
    package static let opcode = HCIOpcode.leSetExtendedAdvertisingEnable

    package var enable: Bool
    package var advertisingHandle: UInt8

    package init(enable: Bool, advertisingHandle: UInt8 = 0) {
        self.enable = enable
        self.advertisingHandle = advertisingHandle
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(enable: false)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Enable", &enable)
        try walker.constant("Num_Sets", UInt8(1))
        try walker.field("Advertising_Handle", &advertisingHandle)
        try walker.constant("Duration", UInt16(0))  // until disabled
        try walker.constant("Max_Extended_Advertising_Events", UInt8(0))  // no limit
    }
}

/// HCI_LE_Set_Advertising_Set_Random_Address: the random address of one advertising set.
package struct HCILESetAdvertisingSetRandomAddress: HCICommand {
    package static let opcode = HCIOpcode.leSetAdvertisingSetRandomAddress

    package var advertisingHandle: UInt8
    package var address: BluetoothAddress

    package init(advertisingHandle: UInt8 = 0, address: BluetoothAddress) {
        self.advertisingHandle = advertisingHandle
        self.address = address
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(address: BluetoothAddress(wire: (0, 0, 0, 0, 0, 0)))
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Advertising_Handle", &advertisingHandle)
        try walker.field("Random_Address", &address)
    }
}
