import Foundation
import GRPCCore
import Testing
import StrobePandora

/// Advertising data in Pandora's `DataTypes`, as avatar's scan-response case sends and checks it.
@Suite struct PandoraDataTypesTests {
    @Test func everyFieldAvatarChecksSurvivesTheAir() throws {
        var types = Pandora_DataTypes()
        types.incompleteServiceClassUuids16 = ["183A", "181F"]
        types.incompleteServiceClassUuids32 = ["FFFF183A", "FFFF181F"]
        types.incompleteServiceClassUuids128 = ["FFFF181F-FFFF-1000-8000-00805F9B34FB"]
        types.shortenedLocalName = "avatar"
        types.completeLocalName = "avatar_the_last_test_blender"
        types.txPowerLevel = 20
        types.classOfDevice = 0x40680
        types.peripheralConnectionIntervalMin = 0x0006
        types.peripheralConnectionIntervalMax = 0x0C80
        types.serviceSolicitationUuids16 = ["183A", "181F"]
        types.serviceSolicitationUuids32 = ["FFFF183A", "FFFF181F"]
        types.serviceSolicitationUuids128 = ["FFFF183A-FFFF-1000-8000-00805F9B34FB"]
        types.serviceDataUuid16 = ["183A": Data([1, 2, 3, 4])]
        types.serviceDataUuid32 = ["FFFF183A": Data([1, 2, 3, 4])]
        types.serviceDataUuid128 = ["FFFF181F-FFFF-1000-8000-00805F9B34FB": Data([1, 2, 3, 4])]
        types.appearance = 0x0591
        types.advertisingInterval = 0x1000
        types.uri = "https://www.google.com"
        types.leSupportedFeatures = Data(repeating: 0, count: 14) + Data([0x10, 0x9F])
        types.manufacturerSpecificData = Data([0, 1, 2, 3, 4])
        types.publicTargetAddresses = [Data([0xF0, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5])]
        types.leDiscoverabilityMode = .discoverableGeneral
        #expect(PandoraDataTypes.decode(try PandoraDataTypes.encode(types)) == types)
    }

    @Test func bytesAreReadAsTheSpecificationLaysThemOut() {
        // 16-bit UUIDs little-endian on the air, most significant first in the string; the
        // manufacturer data whole, company ID included; TX power as its byte.
        let bytes: [UInt8] = [0x05, 0x02, 0x3A, 0x18, 0x1F, 0x18, 0x05, 0xFF, 0xE0, 0x00, 0xCA, 0xFE, 0x02, 0x0A, 0xEC]
        let types = PandoraDataTypes.decode(bytes)
        #expect(types.incompleteServiceClassUuids16 == ["183A", "181F"])
        #expect(types.manufacturerSpecificData == Data([0xE0, 0x00, 0xCA, 0xFE]))
        #expect(types.txPowerLevel == 0xEC)
    }

    @Test func whatCannotBeSentIsRefused() {
        var long = Pandora_DataTypes()
        long.manufacturerSpecificData = Data(repeating: 0xAB, count: 255)
        #expect(throws: RPCError.self) { try PandoraDataTypes.encode(long) }
        var own = Pandora_DataTypes()
        own.includeCompleteLocalName = true
        #expect { try PandoraDataTypes.encode(own) } throws: { ($0 as? RPCError)?.code == .unimplemented }
    }

    @Test func aMalformedTailIsDropped() {
        // The second structure claims 9 bytes where 2 are left.
        let types = PandoraDataTypes.decode([0x03, 0xFF, 0x01, 0x02, 0x09, 0x09, 0x41])
        #expect(types.manufacturerSpecificData == Data([0x01, 0x02]))
        #expect(types.completeLocalName.isEmpty)
    }
}
