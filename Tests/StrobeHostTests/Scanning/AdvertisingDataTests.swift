import Testing
import StrobeHost

@Suite struct AdvertisingDataTests {
    @Test func bumblePeripheralAdvertisement() throws {
        let data = try AdvertisingData(bytes: bytes("02 01 06 0e 09 42 75 6d 62 6c 65 2d 50 65 72 69 70 68"))
        #expect(data.structures == [.flags([.leGeneralDiscoverable, .brEdrNotSupported]), .localName("Bumble-Periph", complete: true)])
        #expect(data.localName == "Bumble-Periph")
        #expect(data.flags == [.leGeneralDiscoverable, .brEdrNotSupported])
    }

    @Test func everyInterpretedTypeAndUnknownOnesKeptRaw() throws {
        let custom = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DC0001")
        let customWire = bytes("01 00 dc 24 0e e5 a9 e0 93 f3 a3 b5 01 00 40 6e")
        let raw: [UInt8] = bytes("02 01 05")
            + bytes("05 02 0d 18 0f 18")
            + bytes("05 05 78 56 34 12")
            + [17, 0x07] + customWire
            + bytes("04 08 42 75 6d")
            + bytes("02 0a f8")
            + bytes("03 19 c1 03")
            + bytes("05 ff 4c 00 02 15")
            + bytes("04 16 0f 18 64")
            + bytes("06 20 78 56 34 12 aa")
            + [18, 0x21] + customWire + [0x01]
            + bytes("03 2a 01 02")
        let data = try AdvertisingData(bytes: raw)
        #expect(data.structures == [
            .flags([.leLimitedDiscoverable, .brEdrNotSupported]),
            .serviceUUIDs([BluetoothUUID(UInt16(0x180D)), BluetoothUUID(UInt16(0x180F))], width: .bits16, complete: false),
            .serviceUUIDs([BluetoothUUID(uuid32: 0x1234_5678)], width: .bits32, complete: true),
            .serviceUUIDs([custom], width: .bits128, complete: true),
            .localName("Bum", complete: false),
            .txPowerLevel(-8),
            .appearance(0x03C1),
            .manufacturerSpecificData(ManufacturerData(companyIdentifier: 0x004C, data: [0x02, 0x15])),
            .serviceData(ServiceData(uuid: BluetoothUUID(UInt16(0x180F)), data: [0x64]), width: .bits16),
            .serviceData(ServiceData(uuid: BluetoothUUID(uuid32: 0x1234_5678), data: [0xAA]), width: .bits32),
            .serviceData(ServiceData(uuid: custom, data: [0x01]), width: .bits128),
            .other(type: AdvertisingDataType(rawValue: 0x2A), data: [0x01, 0x02]),
        ])
        #expect(data.serviceUUIDs == [BluetoothUUID(UInt16(0x180D)), BluetoothUUID(UInt16(0x180F)), BluetoothUUID(uuid32: 0x1234_5678), custom])
        #expect(data.localName == "Bum" && data.txPowerLevel == -8 && data.appearance == 0x03C1)
        #expect(data.manufacturerData == [ManufacturerData(companyIdentifier: 0x004C, data: [0x02, 0x15])])
        #expect(data.serviceData.count == 3)
        #expect(data.encoded == raw)
    }

    @Test func completeNameWinsOverShortened() throws {
        let data = try AdvertisingData(bytes: bytes("03 08 41 42 05 09 41 42 43 44"))
        #expect(data.localName == "ABCD")
    }

    @Test func malformedLengthsAreTypedErrors() {
        let cases: [(String, AdvertisingDataError)] = [
            ("05 09 41 42", .lengthExceedsData(offset: 0, length: 5, remaining: 3)),
            ("02 01 06 09", .lengthExceedsData(offset: 3, length: 9, remaining: 0)),
            ("01 01", .fieldTooShort(offset: 0, type: .flags, length: 0, minimum: 1)),
            ("04 03 0d 18 0f", .uuidListLength(offset: 0, type: .completeServiceUUIDs16, length: 3)),
            ("03 07 01 02", .uuidListLength(offset: 0, type: .completeServiceUUIDs128, length: 2)),
            ("02 ff 4c", .fieldTooShort(offset: 0, type: .manufacturerSpecificData, length: 1, minimum: 2)),
            ("02 01 06 02 19 c1", .fieldTooShort(offset: 3, type: .appearance, length: 1, minimum: 2)),
            ("01 0a", .fieldTooShort(offset: 0, type: .txPowerLevel, length: 0, minimum: 1)),
            ("04 21 01 02 03", .fieldTooShort(offset: 0, type: .serviceData128, length: 3, minimum: 16)),
        ]
        for (input, expected) in cases {
            #expect(throws: expected, "\(input)") { try AdvertisingData(bytes: bytes(input)) }
        }
        #expect(AdvertisingDataError.fieldTooShort(offset: 3, type: .appearance, length: 1, minimum: 2).description
            == "Appearance (0x19) at byte 3 has 1 data bytes, needs at least 2")
    }

    @Test func zeroLengthEndsTheDataAndNamesAreForgiving() throws {
        #expect(try AdvertisingData(bytes: bytes("02 01 06 00 00 00 00")).structures == [.flags([.leGeneralDiscoverable, .brEdrNotSupported])])
        #expect(try AdvertisingData(bytes: []).structures.isEmpty)
        // NUL padding trimmed; invalid UTF-8 replaced rather than rejected.
        #expect(try AdvertisingData(bytes: bytes("05 09 41 42 00 00")).localName == "AB")
        #expect(try AdvertisingData(bytes: bytes("03 09 41 ff")).localName == "A\u{FFFD}")
    }

    @Test func arbitraryBytesNeverTrap() {
        // A fixed pseudo-random sequence: every input either parses or throws.
        var seed: UInt32 = 0x1234_5678
        for _ in 0..<2000 {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let count = Int(seed >> 27)
            var input: [UInt8] = []
            for _ in 0..<count {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                input.append(UInt8(truncatingIfNeeded: seed >> 24))
            }
            if let data = try? AdvertisingData(bytes: input) {
                // What parses re-encodes to something that parses to the same structures.
                #expect((try? AdvertisingData(bytes: data.encoded))?.structures.count == data.structures.count)
            }
        }
    }
}
