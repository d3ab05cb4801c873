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
}

/// The value of RSSI and TX power fields meaning "not available".
let notAvailableDBm: Int8 = 127

extension LEAdvertisingReport {
    static let packet = "LE Advertising Report"

    /// Decodes every report of the subevent's parameters (after the subevent code). Reports
    /// follow each other whole: event type, address type, address, data length, data, RSSI.
    package static func decodeReports(_ parameters: UnsafeRawBufferPointer) throws(HCIError) -> [LEAdvertisingReport] {
        var r = HCIFieldReader(parameters, packet: packet)
        let count = Int(try r.u8("Num_Reports"))
        var reports: [LEAdvertisingReport] = []
        reports.reserveCapacity(count)
        for i in 0..<count {
            let eventType = EventType(rawValue: try r.u8("Event_Type[\(i)]"))
            let addressType = LEAddressType(rawValue: try r.u8("Address_Type[\(i)]"))
            let address = try r.address("Address[\(i)]")
            let length = Int(try r.u8("Data_Length[\(i)]"))
            guard length <= legacyAdvertisingDataMaximumLength else {
                throw r.malformed("Data_Length[\(i)] is \(length), more than 31")
            }
            let data = try r.bytes("Data[\(i)]", count: length)
            let rssi = try r.i8("RSSI[\(i)]")
            reports.append(LEAdvertisingReport(
                eventType: eventType, addressType: addressType, address: address,
                data: data, rssi: rssi == notAvailableDBm ? nil : rssi))
        }
        return reports
    }
}

extension LEExtendedAdvertisingReport {
    static let packet = "LE Extended Advertising Report"

    /// Decodes every report of the subevent's parameters (after the subevent code).
    package static func decodeReports(_ parameters: UnsafeRawBufferPointer) throws(HCIError) -> [LEExtendedAdvertisingReport] {
        var r = HCIFieldReader(parameters, packet: packet)
        let count = Int(try r.u8("Num_Reports"))
        var reports: [LEExtendedAdvertisingReport] = []
        reports.reserveCapacity(count)
        for i in 0..<count {
            let eventType = EventType(rawValue: try r.u16("Event_Type[\(i)]"))
            let addressType = LEAddressType(rawValue: try r.u8("Address_Type[\(i)]"))
            let address = try r.address("Address[\(i)]")
            let primaryPHY = LEPHY(rawValue: try r.u8("Primary_PHY[\(i)]"))
            let secondaryPHY = LEPHY(rawValue: try r.u8("Secondary_PHY[\(i)]"))
            let sid = try r.u8("Advertising_SID[\(i)]")
            let txPower = try r.i8("TX_Power[\(i)]")
            let rssi = try r.i8("RSSI[\(i)]")
            let interval = try r.u16("Periodic_Advertising_Interval[\(i)]")
            let directAddressType = LEAddressType(rawValue: try r.u8("Direct_Address_Type[\(i)]"))
            let directAddress = try r.address("Direct_Address[\(i)]")
            let length = Int(try r.u8("Data_Length[\(i)]"))
            let data = try r.bytes("Data[\(i)]", count: length)
            reports.append(LEExtendedAdvertisingReport(
                eventType: eventType, addressType: addressType, address: address,
                primaryPHY: primaryPHY, secondaryPHY: secondaryPHY, advertisingSID: sid,
                txPower: txPower == notAvailableDBm ? nil : txPower,
                rssi: rssi == notAvailableDBm ? nil : rssi,
                periodicAdvertisingInterval: interval,
                directAddressType: directAddressType, directAddress: directAddress, data: data))
        }
        return reports
    }
}
