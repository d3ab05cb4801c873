/// One report of LE Advertising Report (Core Specification Vol 4, Part E, 7.7.65.2).
package struct LEAdvertisingReport: Sendable, Hashable {
    /// The legacy PDU that was received.
    package struct EventType: RawRepresentable, Sendable, Hashable {
        package var rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }

        package static let advInd = EventType(rawValue: 0x00)
        package static let advDirectInd = EventType(rawValue: 0x01)
        package static let advScanInd = EventType(rawValue: 0x02)
        package static let advNonconnInd = EventType(rawValue: 0x03)
        package static let scanRsp = EventType(rawValue: 0x04)

        package var isConnectable: Bool { self == .advInd || self == .advDirectInd }
        package var isScanResponse: Bool { self == .scanRsp }
    }

    package var eventType: EventType
    package var addressType: LEAddressType
    package var address: BluetoothAddress
    package var data: [UInt8]
    /// dBm; `nil` when the controller could not measure it (127).
    package var rssi: Int8?

    package init(eventType: EventType, addressType: LEAddressType, address: BluetoothAddress, data: [UInt8], rssi: Int8? = nil) {
        self.eventType = eventType
        self.addressType = addressType
        self.address = address
        self.data = data
        self.rssi = rssi
    }
}

/// One report of LE Extended Advertising Report (Core Specification Vol 4, Part E, 7.7.65.13).
package struct LEExtendedAdvertisingReport: Sendable, Hashable {
    /// Event_Type: properties in bits 0-4, data status in bits 5-6.
    package struct EventType: RawRepresentable, Sendable, Hashable {
        package var rawValue: UInt16
        package init(rawValue: UInt16) { self.rawValue = rawValue }

        package var isConnectable: Bool { rawValue & 0x01 != 0 }
        package var isScannable: Bool { rawValue & 0x02 != 0 }
        package var isDirected: Bool { rawValue & 0x04 != 0 }
        package var isScanResponse: Bool { rawValue & 0x08 != 0 }
        package var isLegacy: Bool { rawValue & 0x10 != 0 }
        package var dataStatus: DataStatus { DataStatus(rawValue: UInt8((rawValue >> 5) & 0x03)) }
    }

    /// Whether the data is whole, or one piece of a longer payload.
    package struct DataStatus: RawRepresentable, Sendable, Hashable {
        package var rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }

        package static let complete = DataStatus(rawValue: 0)
        /// More reports with the rest of this payload follow.
        package static let incompleteMoreToCome = DataStatus(rawValue: 1)
        /// The controller gave up on the rest; this is all there will be.
        package static let incompleteTruncated = DataStatus(rawValue: 2)
    }

    package var eventType: EventType
    package var addressType: LEAddressType
    package var address: BluetoothAddress
    package var primaryPHY: LEPHY
    /// `0` when no secondary channel was used.
    package var secondaryPHY: LEPHY
    /// 0xFF when the PDU had no ADI field.
    package var advertisingSID: UInt8
    /// dBm; `nil` when not available (127).
    package var txPower: Int8?
    /// dBm; `nil` when not available (127).
    package var rssi: Int8?
    /// In 1.25 ms units; 0 without periodic advertising.
    package var periodicAdvertisingInterval: UInt16
    package var directAddressType: LEAddressType
    package var directAddress: BluetoothAddress
    package var data: [UInt8]

    package init(eventType: EventType, addressType: LEAddressType, address: BluetoothAddress, primaryPHY: LEPHY, secondaryPHY: LEPHY, advertisingSID: UInt8, txPower: Int8? = nil, rssi: Int8? = nil, periodicAdvertisingInterval: UInt16, directAddressType: LEAddressType, directAddress: BluetoothAddress, data: [UInt8]) {
        self.eventType = eventType
        self.addressType = addressType
        self.address = address
        self.primaryPHY = primaryPHY
        self.secondaryPHY = secondaryPHY
        self.advertisingSID = advertisingSID
        self.txPower = txPower
        self.rssi = rssi
        self.periodicAdvertisingInterval = periodicAdvertisingInterval
        self.directAddressType = directAddressType
        self.directAddress = directAddress
        self.data = data
    }
}

/// The value of RSSI and TX power fields meaning "not available".
let notAvailableDBm: Int8 = 127

extension LEAdvertisingReport: HCIListElement {
    package static var countName: String { "Num_Reports" }

    package init() {
        self.init(eventType: .advInd, addressType: .public, address: BluetoothAddress(wire: (0, 0, 0, 0, 0, 0)), data: [], rssi: nil)
    }

    /// One report; a subevent carries `Num_Reports` of them one after another.
    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        var type = eventType.rawValue
        try walker.field("Event_Type", &type)
        eventType = EventType(rawValue: type)
        try walker.field("Address_Type", &addressType)
        try walker.field("Address", &address)
        try walker.data("Data", &data, maximum: legacyAdvertisingDataMaximumLength)
        try walkDBm("RSSI", &rssi, &walker)
    }
}

extension LEExtendedAdvertisingReport: HCIListElement {
    package static var countName: String { "Num_Reports" }

    package init() {
        self.init(eventType: EventType(rawValue: 0), addressType: .public, address: BluetoothAddress(wire: (0, 0, 0, 0, 0, 0)),
                  primaryPHY: .le1M, secondaryPHY: .le1M, advertisingSID: 0, txPower: nil, rssi: nil,
                  periodicAdvertisingInterval: 0, directAddressType: .public,
                  directAddress: BluetoothAddress(wire: (0, 0, 0, 0, 0, 0)), data: [])
    }

    /// One report; a subevent carries `Num_Reports` of them one after another.
    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        var type = eventType.rawValue
        try walker.field("Event_Type", &type)
        eventType = EventType(rawValue: type)
        try walker.field("Address_Type", &addressType)
        try walker.field("Address", &address)
        try walker.field("Primary_PHY", &primaryPHY)
        try walker.field("Secondary_PHY", &secondaryPHY)
        try walker.field("Advertising_SID", &advertisingSID)
        try walkDBm("TX_Power", &txPower, &walker)
        try walkDBm("RSSI", &rssi, &walker)
        try walker.field("Periodic_Advertising_Interval", &periodicAdvertisingInterval)
        try walker.field("Direct_Address_Type", &directAddressType)
        try walker.field("Direct_Address", &directAddress)
        try walker.data("Data", &data)
    }
}

/// A power in dBm whose 127 means not available (nil).
private func walkDBm<Walker: HCIParameterWalker>(_ name: String, _ value: inout Int8?, _ walker: inout Walker) throws(Walker.Failure) {
    var raw = value ?? notAvailableDBm
    try walker.field(name, &raw)
    value = raw == notAvailableDBm ? nil : raw
}
