import Foundation
import Testing
import StrobeHost

@Suite struct BluetoothUUIDTests {
    @Test func sixteenBitUUIDsExpandOnTheBaseUUID() {
        let uuid = BluetoothUUID(UInt16(0x180A))
        #expect(uuid.description == "180A")
        #expect(uuid.uuidString == "0000180A-0000-1000-8000-00805F9B34FB")
        #expect(uuid.uuid16 == 0x180A && uuid.uuid32 == 0x180A && uuid.shortestWidth == .bits16)
        #expect(BluetoothUUID("180a") == uuid)
        #expect(BluetoothUUID("0000180A") == uuid)
        #expect(BluetoothUUID("0000180a-0000-1000-8000-00805f9b34fb") == uuid)
        #expect(BluetoothUUID("0000180A00001000800000805F9B34FB") == uuid)
        #expect(BluetoothUUID(value: 0x0000_180A_0000_1000_8000_0080_5F9B_34FB) == uuid)
    }

    @Test func thirtyTwoBitAndFullUUIDs() throws {
        let alias = BluetoothUUID(uuid32: 0x1234_5678)
        #expect(alias.description == "12345678" && alias.uuid16 == nil && alias.shortestWidth == .bits32)
        let custom = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DC0001")
        #expect(custom.description == "6E400001-B5A3-F393-E0A9-E50E24DC0001")
        #expect(custom.uuid16 == nil && custom.uuid32 == nil && custom.shortestWidth == .bits128)
        #expect(custom != BluetoothUUID(UInt16(0x0001)))
    }

    @Test func wireFormIsLittleEndian() throws {
        #expect(BluetoothUUID(littleEndian: [0x0A, 0x18]) == BluetoothUUID(UInt16(0x180A)))
        #expect(BluetoothUUID(littleEndian: [0x78, 0x56, 0x34, 0x12]) == BluetoothUUID(uuid32: 0x1234_5678))
        let custom = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DC0001")
        let wire = bytes("01 00 dc 24 0e e5 a9 e0 93 f3 a3 b5 01 00 40 6e")
        #expect(BluetoothUUID(littleEndian: wire) == custom)
        #expect(custom.littleEndianBytes() == wire)
        #expect(BluetoothUUID(UInt16(0x180A)).littleEndianBytes() == [0x0A, 0x18])
        #expect(BluetoothUUID(UInt16(0x180A)).littleEndianBytes(width: .bits128)
            == bytes("fb 34 9b 5f 80 00 00 80 00 10 00 00 0a 18 00 00"))
        // A UUID without a short alias is never truncated.
        #expect(custom.littleEndianBytes(width: .bits16).count == 16)
        #expect(BluetoothUUID(littleEndian: [0x01, 0x02, 0x03]) == nil)
    }

    @Test func invalidStringsAreRejected() {
        for text in ["", "18A", "180G", "12345", "6E400001B5A3-F393-E0A9-E50E24DC0001", "6E400001-B5A3-F393-E0A9E50E-24DC0001",
                     "0000180A-0000-1000-8000-00805F9B34FB0"] {
            #expect(BluetoothUUID(text) == nil, "\(text)")
        }
    }

    @Test func jsonUsesTheStringForm() throws {
        let uuids = [BluetoothUUID(UInt16(0x180D)), BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DC0001")]
        let json = String(decoding: try JSONEncoder().encode(uuids), as: UTF8.self)
        #expect(json == #"["180D","6E400001-B5A3-F393-E0A9-E50E24DC0001"]"#)
        #expect(try JSONDecoder().decode([BluetoothUUID].self, from: Data(json.utf8)) == uuids)
    }
}

@Suite struct AssignedNumberTests {
    @Test func sixteenBitUUIDsHaveTheSIGsNames() {
        #expect(BluetoothUUID.batteryService.name == "Battery")
        #expect(BluetoothUUID.batteryLevel.name == "Battery Level")
        #expect(BluetoothUUID.clientCharacteristicConfiguration.name == "Client Characteristic Configuration")
        #expect(BluetoothUUID.primaryService.name == "Primary Service")
        #expect(BluetoothUUID("0001").name == "SDP")
        #expect(BluetoothUUID("FFFF").name == nil)
        #expect(BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DC0001").name == nil)
    }

    /// The generated table is the data file, row for row, sorted (the lookup searches it).
    @Test func theTableIsTheDataFile() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/StrobeHost/UUID/assigned-uuid16.tsv")
        let rows = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
            .map { line -> (UInt16, String) in
                let fields = line.split(separator: "\t", maxSplits: 1)
                return (UInt16(fields[0], radix: 16)!, String(fields[1]))
            }
            .sorted { $0.0 < $1.0 }
        let table = BluetoothUUID.assignedNumbers
        #expect(rows.count == table.count)
        #expect(rows.map(\.0) == table.map(\.uuid16))
        #expect(rows.map(\.1) == table.map { $0.name.description })
    }
}
