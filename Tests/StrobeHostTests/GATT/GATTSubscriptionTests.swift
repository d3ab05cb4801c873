import StrobeHCI
import Testing
import StrobeHost

@Suite struct GATTSubscriptionTests {
    private static let batteryLevel = GATTTestDatabase.expected.services[2].characteristics[0].characteristic

    @Test func subscribeWritesTheCCCDAndRoutesNotifications() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        try await h.client.discoverDatabase(subscribeToServiceChanged: false)
        let handler = RecordingValueHandler()
        try await h.client.subscribe(Self.batteryLevel, handler: handler)
        #expect(h.server.value(at: GATTTestDatabase.batteryCCCD) == [0x01, 0x00])
        // The CCCD came from the cache: no descriptor discovery after the database's.
        #expect(h.server.count(.findInformationRequest) == 3)

        h.server.notify(GATTTestDatabase.batteryLevelHandle, [55])
        #expect(handler.received == [.init(handle: 0x0B, value: [55], kind: .notification, time: HostTime(nanoseconds: 42))])

        try await h.client.unsubscribe(Self.batteryLevel)
        #expect(h.server.value(at: GATTTestDatabase.batteryCCCD) == [0x00, 0x00])
        h.server.notify(GATTTestDatabase.batteryLevelHandle, [56])
        #expect(handler.received.count == 1)
        #expect(h.bearer.statistics.unroutedValues == 1)
    }

    @Test func subscribeWithoutACacheDiscoversTheCCCD() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        try await h.client.subscribe(Self.batteryLevel, handler: RecordingValueHandler())
        #expect(h.server.count(.findInformationRequest) == 2)
        #expect(h.server.value(at: GATTTestDatabase.batteryCCCD) == [0x01, 0x00])
    }

    @Test func subscribeChecksPropertiesAndDescriptors() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        await #expect(throws: StrobeError.gatt(GATTError.propertyNotSupported(.indicate, valueHandle: 0x0B))) {
            try await h.client.subscribe(Self.batteryLevel, to: .indication, handler: RecordingValueHandler())
        }
        // A notify property without a CCCD behind it.
        var noDescriptor = Self.batteryLevel
        noDescriptor.endHandle = noDescriptor.valueHandle
        await #expect(throws: StrobeError.gatt(GATTError.noClientCharacteristicConfiguration(valueHandle: 0x0B))) {
            try await h.client.subscribe(noDescriptor, handler: RecordingValueHandler())
        }
        #expect(h.server.writes.isEmpty)
    }

    @Test func failedCCCDWriteRemovesTheRoute() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        h.server.rewriteResponses { request, response in
            request.first == 0x12 ? [0x01, 0x12, 0x0C, 0x00, 0x0F] : response
        }
        let handler = RecordingValueHandler()
        await #expect(throws: StrobeError.att(ATTError(requestOpcode: .writeRequest, handle: 0x0C, code: .insufficientEncryption))) {
            try await h.client.subscribe(Self.batteryLevel, handler: handler)
        }
        h.server.notify(GATTTestDatabase.batteryLevelHandle, [1])
        #expect(handler.received.isEmpty)
    }

    @Test func serviceChangedInvalidatesAndRediscoversTheRange() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        var events = h.client.databaseEvents.makeAsyncIterator()
        try await h.client.discoverDatabase()

        // The server replaces the custom service with a new one and appends another.
        h.server.removeAttributes(in: 0x0010...0x0014)
        h.server.addService(BluetoothUUID(0x181C), at: 0x0010)
        h.server.addCharacteristic(BluetoothUUID(0x2A8A), properties: [.read, .write], value: [1])   // 0x11, 0x12
        h.server.addService(BluetoothUUID(0x1819), at: 0x0020)
        h.server.addCharacteristic(BluetoothUUID(0x2A67), properties: [.notify])                     // 0x21-0x23
        h.server.indicate(GATTTestDatabase.serviceChangedHandle, [0x10, 0x00, 0xFF, 0xFF])

        guard case .invalidated(let invalidated) = await events.next() else { Issue.record("no invalidation"); return }
        #expect(invalidated == 0x0010...0xFFFF)
        guard case .rediscovered(let rediscovered) = await events.next() else { Issue.record("no rediscovery"); return }
        #expect(rediscovered == 0x0010...0xFFFF)
        await h.channel.waitUntilSent(.handleValueConfirmation)

        let database = try #require(h.client.database)
        #expect(database.services.map(\.service.uuid) == [.genericAccessService, .genericAttributeService, BluetoothUUID(0x180F), BluetoothUUID(0x181C), BluetoothUUID(0x1819)])
        #expect(Array(database.services.prefix(3)) == Array(GATTTestDatabase.expected.services.prefix(3)))
        #expect(database.service(BluetoothUUID(0x181C))?.service.handles == 0x0010...0x001F)
        #expect(database.characteristic(BluetoothUUID(0x2A67), inService: BluetoothUUID(0x1819))?.descriptors
            == [GATTDescriptor(uuid: .clientCharacteristicConfiguration, handle: 0x23)])
    }

    @Test func serviceChangedOverlappingAServiceWidensTheRange() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        var events = h.client.databaseEvents.makeAsyncIterator()
        try await h.client.discoverDatabase()
        // The server now declares battery level with a value handle outside its service.
        h.server.setValue([0x12, 0x2B, 0x00, 0x19, 0x2A], at: 0x000A)
        h.server.indicate(GATTTestDatabase.serviceChangedHandle, [0x0A, 0x00, 0x0A, 0x00])
        // The change touches part of the battery service: the whole service is rediscovered.
        guard case .invalidated(let range) = await events.next() else { Issue.record("no invalidation"); return }
        #expect(range == 0x0008...0x000F)
        guard case .rediscoveryFailed(let failed, let error) = await events.next() else { Issue.record("expected a failure"); return }
        #expect(failed == 0x0008...0x000F)
        #expect(error as? StrobeError == .gatt(.invalidResponse(.readByTypeResponse, reason: "characteristic at 0x000A has value handle 0x002B")))
        #expect(h.client.database?.service(BluetoothUUID(0x180F)) == nil)
        #expect(h.client.database?.services.count == 3)
    }

    @Test func malformedServiceChangedIsCountedAndConfirmed() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        try await h.client.discoverDatabase()
        h.server.indicate(GATTTestDatabase.serviceChangedHandle, [0x10, 0x00, 0xFF])
        h.server.indicate(GATTTestDatabase.serviceChangedHandle, [0x10, 0x00, 0x01, 0x00])
        await h.channel.waitUntilSent(.handleValueConfirmation, count: 2)
        #expect(h.client.malformedServiceChangedCount == 2)
        await h.client.waitForRediscovery()
        #expect(h.client.database == GATTTestDatabase.expected)
    }

    @Test func serviceChangedOverTheWholeDatabaseRearmsItself() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        try await h.client.discoverDatabase()
        for round in 1...2 {
            h.server.indicate(GATTTestDatabase.serviceChangedHandle, [0x01, 0x00, 0xFF, 0xFF])
            await h.channel.waitUntilSent(.handleValueConfirmation, count: round)
            await h.client.waitForRediscovery()
            #expect(h.client.database == GATTTestDatabase.expected)
        }
        // Indications re-enabled after each rediscovery of the GATT service.
        #expect(h.server.writes.filter { $0.handle == GATTTestDatabase.serviceChangedCCCD }.count == 3)
        #expect(h.server.count(.readByGroupTypeRequest) == 9)
    }
}
