import StrobeHost

/// A small multi-service server: GAP, GATT (Service Changed), Battery (including the custom
/// service) and a custom 128-bit service with a 300-byte value. Handles 0x0E-0x0F are unused.
enum GATTTestDatabase {
    static let customService = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
    static let customWrite = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")
    static let customLong = BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")
    static let longValue: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }

    static let deviceNameHandle: AttributeHandle = 0x0003
    static let serviceChangedHandle: AttributeHandle = 0x0006
    static let serviceChangedCCCD: AttributeHandle = 0x0007
    static let batteryLevelHandle: AttributeHandle = 0x000B
    static let batteryCCCD: AttributeHandle = 0x000C
    static let customWriteHandle: AttributeHandle = 0x0012
    static let customLongHandle: AttributeHandle = 0x0014

    static func build(_ server: TestGATTServer) {
        server.addService(.genericAccessService)                                                    // 0x01
        server.addCharacteristic(BluetoothUUID(0x2A00), properties: [.read], value: Array("Strobe".utf8)) // 0x02, 0x03
        server.addService(.genericAttributeService)                                                 // 0x04
        server.addCharacteristic(.serviceChanged, properties: [.indicate])                          // 0x05-0x07
        server.addService(BluetoothUUID(0x180F))                                                          // 0x08
        server.addInclude(serviceAt: 0x0010)                                                        // 0x09
        server.addCharacteristic(BluetoothUUID(0x2A19), properties: [.read, .notify], value: [77])       // 0x0A-0x0C
        server.add(.characteristicUserDescription, value: Array("Battery".utf8))                    // 0x0D
        server.addService(customService, at: 0x0010)                                                // 0x10
        server.addCharacteristic(customWrite, properties: [.write, .writeWithoutResponse])          // 0x11, 0x12
        server.addCharacteristic(customLong, properties: [.read], value: longValue, writable: false) // 0x13, 0x14
    }

    static let expected = GATTDatabase(services: [
        .init(
            service: GATTService(uuid: .genericAccessService, startHandle: 0x01, endHandle: 0x03),
            characteristics: [.init(
                characteristic: GATTCharacteristic(uuid: BluetoothUUID(0x2A00), properties: [.read], declarationHandle: 0x02, valueHandle: 0x03, endHandle: 0x03),
                descriptors: [])]),
        .init(
            service: GATTService(uuid: .genericAttributeService, startHandle: 0x04, endHandle: 0x07),
            characteristics: [.init(
                characteristic: GATTCharacteristic(uuid: .serviceChanged, properties: [.indicate], declarationHandle: 0x05, valueHandle: 0x06, endHandle: 0x07),
                descriptors: [GATTDescriptor(uuid: .clientCharacteristicConfiguration, handle: 0x07)])]),
        .init(
            service: GATTService(uuid: BluetoothUUID(0x180F), startHandle: 0x08, endHandle: 0x0F),
            includedServices: [GATTIncludedService(
                declarationHandle: 0x09, service: GATTService(uuid: customService, startHandle: 0x10, endHandle: 0x14))],
            characteristics: [.init(
                characteristic: GATTCharacteristic(uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], declarationHandle: 0x0A, valueHandle: 0x0B, endHandle: 0x0F),
                descriptors: [GATTDescriptor(uuid: .clientCharacteristicConfiguration, handle: 0x0C),
                              GATTDescriptor(uuid: .characteristicUserDescription, handle: 0x0D)])]),
        .init(
            service: GATTService(uuid: customService, startHandle: 0x10, endHandle: 0x14),
            characteristics: [
                .init(characteristic: GATTCharacteristic(uuid: customWrite, properties: [.write, .writeWithoutResponse], declarationHandle: 0x11, valueHandle: 0x12, endHandle: 0x12), descriptors: []),
                .init(characteristic: GATTCharacteristic(uuid: customLong, properties: [.read], declarationHandle: 0x13, valueHandle: 0x14, endHandle: 0x14), descriptors: []),
            ]),
    ])
}
