import StrobeHost

/// What a device's Device Information service (`180A`, DIS 1.1) says of it, each part only when
/// the device has that characteristic. Strings are UTF-8, invalid bytes and control characters
/// replaced (they are printed).
package struct DeviceInformation: Sendable, Hashable, CustomStringConvertible {
    package var manufacturerName: String?
    package var modelNumber: String?
    package var pnpID: PnPID?

    /// The PnP ID characteristic (`2A50`): who assigned the vendor ID, the vendor, the product
    /// and its version.
    package struct PnPID: Sendable, Hashable {
        package var vendorIDSource: UInt8
        package var vendorID: UInt16
        package var productID: UInt16
        package var productVersion: UInt16

        package init(vendorIDSource: UInt8, vendorID: UInt16, productID: UInt16, productVersion: UInt16) {
            self.vendorIDSource = vendorIDSource
            self.vendorID = vendorID
            self.productID = productID
            self.productVersion = productVersion
        }

        /// Exactly seven bytes; `nil` otherwise.
        package init?(decoding bytes: [UInt8]) {
            guard bytes.count == 7 else { return nil }
            func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
            self.init(vendorIDSource: bytes[0], vendorID: u16(1), productID: u16(3), productVersion: u16(5))
        }

        package var encoded: [UInt8] {
            [vendorIDSource] + [vendorID, productID, productVersion].flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        }
    }

    package static let service = BluetoothUUID(0x180A)
    package static let manufacturerNameString = BluetoothUUID(0x2A29)
    package static let modelNumberString = BluetoothUUID(0x2A24)
    package static let pnpIDCharacteristic = BluetoothUUID(0x2A50)

    package init(manufacturerName: String? = nil, modelNumber: String? = nil, pnpID: PnPID? = nil) {
        self.manufacturerName = manufacturerName
        self.modelNumber = modelNumber
        self.pnpID = pnpID
    }

    /// Reads what the service offers from a discovered database; `nil` without the service.
    /// A PnP ID of the wrong length is left out rather than failing the device.
    package static func read(_ database: GATTDatabase, gatt: GATTClient) async throws -> DeviceInformation? {
        guard database.service(service) != nil else { return nil }
        func value(_ uuid: BluetoothUUID) async throws -> [UInt8]? {
            guard let characteristic = database.characteristic(uuid, inService: service)?.characteristic,
                  characteristic.properties.contains(.read) else { return nil }
            return try await gatt.readLong(handle: characteristic.valueHandle)
        }
        return DeviceInformation(manufacturerName: try await value(manufacturerNameString).map(printable),
                                 modelNumber: try await value(modelNumberString).map(printable),
                                 pnpID: try await value(pnpIDCharacteristic).flatMap(PnPID.init(decoding:)))
    }

    package static func printable(_ bytes: [UInt8]) -> String {
        let scalars = String(decoding: bytes, as: UTF8.self).unicodeScalars
            .map { $0.properties.generalCategory == .control ? "\u{FFFD}" : $0 }
        return String(String.UnicodeScalarView(scalars))
    }

    /// "Manufacturer Model", the parts there are.
    package var description: String {
        [manufacturerName, modelNumber].compactMap { $0 }.joined(separator: " ")
    }
}
