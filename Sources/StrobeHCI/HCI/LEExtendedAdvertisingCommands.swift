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
    package typealias ReturnParameters = Int8
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

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(advertisingHandle)
        writer.write(properties.rawValue)
        writeU24(intervalMin, into: &writer)
        writeU24(intervalMax, into: &writer)
        writer.write(channelMap)
        writer.write(ownAddressType.rawValue)
        writer.write(peerAddressType.rawValue)
        writer.write(peerAddress)
        writer.write(filterPolicy)
        writer.write(UInt8(bitPattern: txPower))
        writer.write(primaryPHY)
        writer.write(secondaryMaxSkip)
        writer.write(secondaryPHY)
        writer.write(advertisingSID)
        writer.write(UInt8(scanRequestNotification ? 1 : 0))
    }

    package static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> Int8 {
        try reader.i8("Selected_TX_Power")
    }
}

private func writeU24(_ value: UInt32, into writer: inout ByteWriter) {
    writer.write(UInt8(truncatingIfNeeded: value))
    writer.write(UInt8(truncatingIfNeeded: value >> 8))
    writer.write(UInt8(truncatingIfNeeded: value >> 16))
}

/// HCI_LE_Set_Extended_Advertising_Data and HCI_LE_Set_Extended_Scan_Response_Data, sent whole
/// (Operation 0x03, complete data). Legacy advertising sets take at most 31 bytes.
package struct HCILESetExtendedAdvertisingData: HCICommand {
    package typealias ReturnParameters = Void
    package static let opcode = HCIOpcode.leSetExtendedAdvertisingData

    package var advertisingHandle: UInt8
    package let data: [UInt8]

    /// `nil` when `data` does not fit in one command (251 bytes).
    package init?(advertisingHandle: UInt8 = 0, data: [UInt8]) {
        guard data.count <= 251 else { return nil }
        self.advertisingHandle = advertisingHandle
        self.data = data
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        encodeExtendedData(advertisingHandle, data, into: &writer)
    }
}

/// HCI_LE_Set_Extended_Scan_Response_Data, sent whole.
package struct HCILESetExtendedScanResponseData: HCICommand {
    package typealias ReturnParameters = Void
    package static let opcode = HCIOpcode.leSetExtendedScanResponseData

    package var advertisingHandle: UInt8
    package let data: [UInt8]

    package init?(advertisingHandle: UInt8 = 0, data: [UInt8]) {
        guard data.count <= 251 else { return nil }
        self.advertisingHandle = advertisingHandle
        self.data = data
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        encodeExtendedData(advertisingHandle, data, into: &writer)
    }
}

private func encodeExtendedData(_ handle: UInt8, _ data: [UInt8], into writer: inout ByteWriter) {
    writer.write(handle)
    writer.write(UInt8(0x03))  // Operation: complete extended advertising data
    writer.write(UInt8(0x01))  // Fragment_Preference: the controller should not fragment
    writer.write(UInt8(data.count))
    writer.write(contentsOf: data)
}

/// HCI_LE_Set_Extended_Advertising_Enable for one advertising set, with no duration or event limit.
package struct HCILESetExtendedAdvertisingEnable: HCICommand {
    package typealias ReturnParameters = Void
    package static let opcode = HCIOpcode.leSetExtendedAdvertisingEnable

    package var enable: Bool
    package var advertisingHandle: UInt8

    package init(enable: Bool, advertisingHandle: UInt8 = 0) {
        self.enable = enable
        self.advertisingHandle = advertisingHandle
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(UInt8(enable ? 1 : 0))
        writer.write(UInt8(1))  // Num_Sets
        writer.write(advertisingHandle)
        writer.write(UInt16(0))  // Duration: until disabled
        writer.write(UInt8(0))  // Max_Extended_Advertising_Events: no limit
    }
}

/// HCI_LE_Set_Advertising_Set_Random_Address: the random address of one advertising set.
package struct HCILESetAdvertisingSetRandomAddress: HCICommand {
    package typealias ReturnParameters = Void
    package static let opcode = HCIOpcode.leSetAdvertisingSetRandomAddress

    package var advertisingHandle: UInt8
    package var address: BluetoothAddress

    package init(advertisingHandle: UInt8 = 0, address: BluetoothAddress) {
        self.advertisingHandle = advertisingHandle
        self.address = address
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(advertisingHandle)
        writer.write(address)
    }
}
