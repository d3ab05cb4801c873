import StrobeHCI
import Testing

import StrobeHost

/// Database Hash (Vol 3, Part G, 7.3) against a foreign implementation: the message and hash
/// below are what Bumble (0.0.236, `bumble.profiles.gatt_service.GenericAttributeProfileService`)
/// computes for a device with its GAP service (Device Name "Bumble", Appearance), its GATT
/// service (Service Changed, Client Supported Features, Database Hash) and a Battery service.
@Suite(.timeLimit(.minutes(1))) struct DatabaseHashTests {
    static let bumbleMessage = """
        01000028001802000328020300002a04000328020500012a06000028011807000328200800052a090002290a00\
        03280a0b00292b0c000328020d002a2b0e0000280f180f000328121000192a11000229
        """
    static let bumbleHash = "9c4998c996a210af5f51b0067c08a45f"

    /// Bumble's layout, attribute for attribute.
    static func bumbleLayout() -> GATTAttributeDatabase {
        let database = GATTAttributeDatabase()
        database.addPrimaryService(.genericAccessService)
        database.addCharacteristic(.deviceName, properties: .read, value: Array("Bumble".utf8))
        database.addCharacteristic(.appearance, properties: .read, value: [0, 0])
        database.addPrimaryService(.genericAttributeService)
        database.addCharacteristic(.serviceChanged, properties: .indicate, permissions: [])
        database.addCharacteristic(.clientSupportedFeatures, properties: [.read, .write], value: [0])
        database.addCharacteristic(.databaseHash, properties: .read)
        database.addPrimaryService(.batteryService)
        database.addCharacteristic(.batteryLevel, properties: [.read, .notify], value: [80])
        return database
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func theServersHashIsBumblesForTheSameDatabase() {
        let database = Self.bumbleLayout()
        let attributes = database.snapshot.map { GATTDatabaseHash.Attribute(handle: $0.handle, type: $0.type, value: $0.value) }
        #expect(Self.hex(GATTDatabaseHash.message(attributes)) == Self.bumbleMessage)
        #expect(Self.hex(database.hash) == Self.bumbleHash)
    }

    @Test func theClientComputesTheServersHashFromWhatItDiscovered() async throws {
        let database = Self.bumbleLayout()
        let client = GATTClient(bearer: BearerPair(serving: database).clientBearer)
        let discovered = try await client.discoverDatabase(subscribeToServiceChanged: false)
        #expect(Self.hex(GATTDatabaseHash.hash(discovered.hashAttributes())) == Self.bumbleHash)
    }

    @Test func aNewServiceChangesTheHash() {
        let database = Self.bumbleLayout()
        let before = database.hash
        database.addPrimaryService(BluetoothUUID(0x180A))
        #expect(database.hash != before)
        #expect(database.hash.count == 16)
    }

    @Test func genericServicesAnswerForTheDevice() async throws {
        let database = GATTAttributeDatabase()
        database.addPrimaryService(.batteryService)
        database.addCharacteristic(.batteryLevel, properties: .read, value: [50])
        let services = GATTGenericServices(
            adding: GATTGenericAccess(deviceName: "Nova 1", appearance: 0x0541), to: database)
        let pair = BearerPair(serving: database)
        let client = GATTClient(bearer: pair.clientBearer)
        let discovered = try await client.discoverDatabase(subscribeToServiceChanged: false)
        #expect(discovered.services.map(\.service.uuid) == [.batteryService, .genericAccessService, .genericAttributeService])
        #expect(try await client.read(handle: services.deviceNameHandle) == Array("Nova 1".utf8))
        #expect(try await client.read(handle: services.appearanceHandle) == [0x41, 0x05])
        let preferred = try #require(discovered.characteristic(.peripheralPreferredConnectionParameters, inService: .genericAccessService))
        #expect(try await client.read(handle: preferred.characteristic.valueHandle) == [6, 0, 12, 0, 0, 0, 200, 0])
        #expect(try await client.read(handle: services.databaseHashHandle) == database.hash)
        #expect(GATTDatabaseHash.hash(discovered.hashAttributes()) == database.hash)
        let changed = try #require(discovered.characteristic(.serviceChanged, inService: .genericAttributeService))
        #expect(changed.characteristic.properties == .indicate)
        #expect(changed.descriptor(.clientCharacteristicConfiguration) != nil)

        services.genericAccess.deviceName = "Nova 2"
        #expect(try await client.read(handle: services.deviceNameHandle) == Array("Nova 2".utf8))
    }

    @Test func clientSupportedFeaturesAreEachClientsAndCannotBeCleared() async throws {
        let database = GATTAttributeDatabase()
        let services = GATTGenericServices(adding: GATTGenericAccess(deviceName: "Grip"), to: database)
        let first = BearerPair(serving: database), second = BearerPair(serving: database)
        let one = GATTClient(bearer: first.clientBearer), two = GATTClient(bearer: second.clientBearer)
        let handle = services.clientSupportedFeaturesHandle
        try await one.write([0x01], handle: handle)
        #expect(try await one.read(handle: handle) == [0x01])
        #expect(try await two.read(handle: handle) == [0x00])
        await #expect(throws: StrobeError.att(ATTError(requestOpcode: .writeRequest, handle: handle, code: .valueNotAllowed))) {
            try await one.write([0x00], handle: handle)
        }
        try await one.write([0x03], handle: handle)
        #expect(try await one.read(handle: handle) == [0x03])
        services.forget(first.server.id)
        #expect(services.clientSupportedFeatures(of: first.server.id) == [0x00])
    }
}

/// A server connection on `database` and the client bearer that talks to it, over in-memory
/// channels.
struct BearerPair {
    let server: GATTServerConnection
    let clientBearer: ATTBearer

    init(serving database: GATTAttributeDatabase) {
        let toServer = PipeChannel(), toClient = PipeChannel()
        let serverBearer = ATTBearer(channel: toClient)
        server = GATTServerConnection(database: database, bearer: serverBearer)
        let bearer = ATTBearer(channel: toServer)
        toServer.deliver { pdu in pdu.withUnsafeBytes { serverBearer.receive($0, at: HostTime(nanoseconds: 0)) } }
        toClient.deliver { pdu in pdu.withUnsafeBytes { bearer.receive($0, at: HostTime(nanoseconds: 0)) } }
        clientBearer = bearer
    }
}
