import Foundation
import StrobeHCI
import Testing
import StrobeHost

@Suite struct DiscoveredDeviceJSONTests {
    @Test func deviceEncodesJSONFriendlyFields() throws {
        var device = DiscoveredDevice(address: try #require(BluetoothAddress("F0:F1:F2:F3:F4:F5")), addressType: .random)
        device.rssi = -50
        device.name = "Bumble-Periph"
        device.serviceUUIDs = [BluetoothUUID(UInt16(0x180D))]
        device.manufacturerData = [ManufacturerData(companyIdentifier: 0x004C, data: [0x02, 0x15])]
        device.txPower = -8
        device.appearance = 0x03C1
        device.connectable = true
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(device), as: UTF8.self)
        #expect(json == #"{"address":"F0:F1:F2:F3:F4:F5","addressType":"random","appearance":961,"connectable":true,"#
            + #""manufacturerData":[{"companyIdentifier":76,"data":"0215"}],"name":"Bumble-Periph","rssi":-50,"#
            + #""serviceData":[],"serviceUUIDs":["180D"],"txPower":-8}"#)
        let decoded = try JSONDecoder().decode(DiscoveredDevice.self, from: Data(json.utf8))
        #expect(decoded.id == device.id && decoded.name == device.name && decoded.manufacturerData == device.manufacturerData)
        #expect(decoded.serviceUUIDs == device.serviceUUIDs && decoded.rssi == -50 && decoded.connectable)
    }

    @Test func addressTypesHaveStableNames() {
        for type in [LEAddressType.public, .random, .publicIdentity, .randomIdentity, .anonymous, LEAddressType(rawValue: 0x2A)] {
            #expect(LEAddressType.named(type.description) == type)
        }
        #expect(LEAddressType.named("nonsense") == nil)
    }
}
