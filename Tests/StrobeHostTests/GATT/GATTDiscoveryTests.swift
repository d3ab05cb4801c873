import Testing
import StrobeHost

@Suite struct GATTDiscoveryTests {
    @Test(arguments: [23, 247])
    func discoversAMultiServiceDatabase(mtu: Int) async throws {
        let h = ATTTestHarness(serverMTU: mtu, build: GATTTestDatabase.build)
        try await h.client.exchangeMTU()
        let database = try await h.client.discoverDatabase()
        #expect(database == GATTTestDatabase.expected)
        #expect(h.client.database == GATTTestDatabase.expected)
        // Attribute Not Found ended each walk without an error; the 128-bit service needed its own
        // Read By Group Type response (one UUID size per response).
        #expect(h.server.count(.readByGroupTypeRequest) == 3)
        // Service Changed indications were enabled.
        #expect(h.server.writes.contains { $0.handle == GATTTestDatabase.serviceChangedCCCD && $0.value == [0x02, 0x00] })
        #expect(h.bearer.statistics.protocolViolations == 0)
    }

    @Test func attributeNotFoundOnTheFirstRequestMeansNoServices() async throws {
        let h = ATTTestHarness()
        #expect(try await h.client.discoverPrimaryServices().isEmpty)
        #expect(try await h.client.discoverPrimaryServices(uuid: BluetoothUUID(0x180F)).isEmpty)
    }

    @Test func otherErrorsEndDiscoveryWithTheATTError() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        h.server.rewriteResponses { request, response in
            request.first == 0x08 ? [0x01, 0x08, 0x08, 0x00, 0x05] : response
        }
        let battery = GATTService(uuid: BluetoothUUID(0x180F), startHandle: 0x08, endHandle: 0x0F)
        await #expect(throws: StrobeError.att(ATTError(requestOpcode: .readByTypeRequest, handle: 0x08, code: .insufficientAuthentication))) {
            try await h.client.discoverCharacteristics(of: battery)
        }
    }

    @Test func discoversServicesAndCharacteristicsByUUID() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        #expect(try await h.client.discoverPrimaryServices(uuid: BluetoothUUID(0x180F))
            == [GATTService(uuid: BluetoothUUID(0x180F), startHandle: 0x08, endHandle: 0x0F)])
        let custom = try await h.client.discoverPrimaryServices(uuid: GATTTestDatabase.customService)
        #expect(custom == [GATTService(uuid: GATTTestDatabase.customService, startHandle: 0x10, endHandle: 0x14)])
        #expect(h.channel.sent(.findByTypeValueRequest).last?.count == 7 + 16)

        let service = try #require(custom.first)
        let write = try await h.client.discoverCharacteristics(of: service, uuid: GATTTestDatabase.customWrite)
        #expect(write == [GATTCharacteristic(uuid: GATTTestDatabase.customWrite, properties: [.write, .writeWithoutResponse],
                                             declarationHandle: 0x11, valueHandle: 0x12, endHandle: 0x12)])
        #expect(try await h.client.discoverDescriptors(of: try #require(write.first)).isEmpty)
    }

    @Test func discoversIncludedServicesWithEither16Or128BitUUIDs() async throws {
        let h = ATTTestHarness { server in
            server.addService(BluetoothUUID(0x1811))            // 0x01
            server.addInclude(serviceAt: 0x0005)          // 0x02: 16-bit, UUID in the declaration
            server.addInclude(serviceAt: 0x0007)          // 0x03: 128-bit, read from 0x0007
            server.addService(BluetoothUUID(0x1812), primary: false, at: 0x0005)
            server.add(BluetoothUUID(0x2A4D), value: [0])       // 0x06
            server.addService(GATTTestDatabase.customService, primary: false, at: 0x0007)
        }
        let included = try await h.client.discoverIncludedServices(of: GATTService(uuid: BluetoothUUID(0x1811), startHandle: 1, endHandle: 4))
        #expect(included == [
            GATTIncludedService(declarationHandle: 2, service: GATTService(uuid: BluetoothUUID(0x1812), startHandle: 5, endHandle: 6)),
            GATTIncludedService(declarationHandle: 3, service: GATTService(uuid: GATTTestDatabase.customService, startHandle: 7, endHandle: 7)),
        ])
        #expect(h.channel.sent(.readRequest) == [[0x0A, 0x07, 0x00]])
    }

    @Test func handlesGoingBackwardsStopDiscovery() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        // Every response repeats the first service: a naive client would loop forever.
        h.server.rewriteResponses { _, _ in [0x11, 0x06, 0x01, 0x00, 0x03, 0x00, 0x00, 0x18] }
        let error = await #expect(throws: StrobeError.self) { try await h.client.discoverPrimaryServices() }
        #expect(error?.layer == "gatt")
        #expect(h.server.count(.readByGroupTypeRequest) == 2)

        // A group that ends before it starts.
        h.server.rewriteResponses { _, _ in [0x11, 0x06, 0x05, 0x00, 0x03, 0x00, 0x00, 0x18] }
        let again = await #expect(throws: StrobeError.self) { try await h.client.discoverPrimaryServices() }
        #expect(again?.layer == "gatt")

        // A service UUID of 3 bytes.
        h.server.rewriteResponses { _, _ in [0x11, 0x07, 0x01, 0x00, 0x03, 0x00, 0x00, 0x18, 0x00] }
        await #expect(throws: StrobeError.gatt(GATTError.invalidResponse(.readByGroupTypeResponse, reason: "service UUID of 3 bytes at 0x0001"))) {
            try await h.client.discoverPrimaryServices()
        }
    }

    @Test func malformedCharacteristicDeclarationsAreRejected() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        let battery = GATTService(uuid: BluetoothUUID(0x180F), startHandle: 0x08, endHandle: 0x0F)
        // 4-byte declaration value.
        h.server.rewriteResponses { request, response in request[1] == 0x08 ? [0x09, 0x06, 0x0A, 0x00, 0x12, 0x0B, 0x00, 0x19] : response }
        await #expect(throws: StrobeError.gatt(GATTError.invalidResponse(.readByTypeResponse, reason: "characteristic declaration of 4 bytes at 0x000A"))) {
            try await h.client.discoverCharacteristics(of: battery)
        }
        // A value handle outside the service.
        h.server.rewriteResponses { request, response in request[1] == 0x08 ? [0x09, 0x07, 0x0A, 0x00, 0x12, 0x40, 0x00, 0x19, 0x2A] : response }
        await #expect(throws: StrobeError.gatt(GATTError.invalidResponse(.readByTypeResponse, reason: "characteristic at 0x000A has value handle 0x0040"))) {
            try await h.client.discoverCharacteristics(of: battery)
        }
        #expect(!h.bearer.isClosed)
    }
}
