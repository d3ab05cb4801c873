import StrobeHCI
import StrobeBase
import Synchronization
import Testing

import StrobeHost

/// Carries PDUs one way, in order, on a task of its own (as a link would, never re-entrantly).
final class PipeChannel: ATTChannel, Sendable {
    let maximumPayload = 517
    private let pipe: AsyncStream<[UInt8]>.Continuation
    private let receiver = Receiver()

    private final class Receiver: Sendable {
        let body = Lock<(@Sendable ([UInt8]) -> Void)?>(nil)
    }

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        pipe = continuation
        Task { [receiver] in
            for await pdu in stream { receiver.body.withLock { $0 }?(pdu) }
        }
    }

    func deliver(to receiver: @escaping @Sendable ([UInt8]) -> Void) { self.receiver.body.withLock { $0 = receiver } }
    func send(_ pdu: [UInt8]) async throws { pipe.yield(pdu) }
    func post(_ pdu: [UInt8], completion: (@Sendable (Result<Void, any Error>) -> Void)?) {
        pipe.yield(pdu)
        completion?(.success(()))
    }
}

/// Strobe's GATT server answering Strobe's GATT client over an in-memory pair of channels.
@Suite(.timeLimit(.minutes(1))) struct GATTServerTests {
    static let service = BluetoothUUID("8D1E0001-3B5A-4C6E-9F00-5A7B0BE0C0DE")
    static let long = BluetoothUUID("8D1E0002-3B5A-4C6E-9F00-5A7B0BE0C0DE")
    static let control = BluetoothUUID("8D1E0003-3B5A-4C6E-9F00-5A7B0BE0C0DE")
    static let events = BluetoothUUID("8D1E0004-3B5A-4C6E-9F00-5A7B0BE0C0DE")
    static let alarms = BluetoothUUID("8D1E0005-3B5A-4C6E-9F00-5A7B0BE0C0DE")
    static let longValue: [UInt8] = (0..<300).map { UInt8($0 % 251) }

    struct Pair {
        let database: GATTAttributeDatabase
        let server: GATTServerConnection
        let client: GATTClient
        let written: WrittenValues
        let characteristics: [BluetoothUUID: GATTServerCharacteristic]
    }

    final class WrittenValues: Sendable {
        private let values = Lock<[[UInt8]]>([])
        func append(_ value: [UInt8]) { values.withLock { $0.append(value) } }
        var all: [[UInt8]] { values.withLock { $0 } }
    }

    static func makePair(serverMTU: Int = 517) -> Pair {
        let database = GATTAttributeDatabase()
        let written = WrittenValues()
        var characteristics: [BluetoothUUID: GATTServerCharacteristic] = [:]
        database.addPrimaryService(.genericAccessService)
        characteristics[BluetoothUUID(0x2A00)] = database.addCharacteristic(BluetoothUUID(0x2A00), properties: [.read], value: Array("Strobe Sim".utf8))
        database.addPrimaryService(service)
        characteristics[long] = database.addCharacteristic(long, properties: [.read], value: longValue)
        characteristics[control] = database.addCharacteristic(
            control, properties: [.write, .writeWithoutResponse],
            onWrite: { _, value in
                // Refuse empty writes, as a device refuses commands it cannot parse.
                guard !value.isEmpty else { return .valueNotAllowed }
                written.append(value)
                return nil
            })
        characteristics[events] = database.addCharacteristic(events, properties: [.notify])
        characteristics[alarms] = database.addCharacteristic(alarms, properties: [.indicate])
        database.addDescriptor(.characteristicUserDescription, value: Array("Alarms".utf8))

        let toServer = PipeChannel()
        let toClient = PipeChannel()
        // Each side is a bearer; the server is a role on its side's.
        let serverBearer = ATTBearer(channel: toClient, configuration: .init(preferredMTU: serverMTU))
        let server = GATTServerConnection(database: database, bearer: serverBearer)
        let bearer = ATTBearer(channel: toServer)
        toServer.deliver { pdu in pdu.withUnsafeBytes { serverBearer.receive($0, at: HostTime(nanoseconds: 0)) } }
        toClient.deliver { pdu in pdu.withUnsafeBytes { bearer.receive($0, at: HostTime(nanoseconds: 0)) } }
        return Pair(database: database, server: server, client: GATTClient(bearer: bearer), written: written,
                    characteristics: characteristics)
    }

    @Test(arguments: [23, 247])
    func discoveryFindsWhatWasBuilt(mtu: Int) async throws {
        let pair = Self.makePair(serverMTU: mtu)
        #expect(try await pair.client.exchangeMTU() == mtu)
        let database = try await pair.client.discoverDatabase(subscribeToServiceChanged: false)
        #expect(database.services.map(\.service.uuid) == [.genericAccessService, Self.service])
        let custom = try #require(database.service(Self.service))
        #expect(custom.characteristics.map(\.characteristic.uuid) == [Self.long, Self.control, Self.events, Self.alarms])
        let alarms = try #require(custom.characteristic(Self.alarms))
        #expect(alarms.descriptors.map(\.uuid) == [.clientCharacteristicConfiguration, .characteristicUserDescription])
        #expect(alarms.characteristic.valueHandle == pair.characteristics[Self.alarms]?.valueHandle)
    }

    @Test(arguments: [23, 247])
    func longReadsAndBothKindsOfWrite(mtu: Int) async throws {
        let pair = Self.makePair(serverMTU: mtu)
        _ = try await pair.client.exchangeMTU()
        let long = try #require(pair.characteristics[Self.long]).valueHandle
        #expect(try await pair.client.readLong(handle: long) == Self.longValue)
        #expect(try await pair.client.read(handle: 0x0003) == Array("Strobe Sim".utf8))

        let control = try #require(pair.characteristics[Self.control]).valueHandle
        try await pair.client.write([1, 2], handle: control)
        try await pair.client.writeWithoutResponse([3], handle: control)
        let longWrite = (0..<120).map { UInt8($0) }
        try await pair.client.writeLong(longWrite, handle: control)
        // The command has no answer: a read after it comes back after it was handled.
        _ = try await pair.client.read(handle: long)
        #expect(pair.written.all == [[1, 2], [3], longWrite])
    }

    @Test func permissionsAndRefusalsAreATTErrors() async throws {
        let pair = Self.makePair()
        let control = try #require(pair.characteristics[Self.control]).valueHandle
        let long = try #require(pair.characteristics[Self.long]).valueHandle
        await #expect(throws: StrobeError.att(ATTError(requestOpcode: .readRequest, handle: control, code: .readNotPermitted))) {
            _ = try await pair.client.read(handle: control)
        }
        await #expect(throws: StrobeError.att(ATTError(requestOpcode: .writeRequest, handle: long, code: .writeNotPermitted))) {
            try await pair.client.write([1], handle: long)
        }
        await #expect(throws: StrobeError.att(ATTError(requestOpcode: .writeRequest, handle: control, code: .valueNotAllowed))) {
            try await pair.client.write([], handle: control)
        }
        await #expect(throws: StrobeError.att(ATTError(requestOpcode: .readRequest, handle: 0x00F0, code: .invalidHandle))) {
            _ = try await pair.client.read(handle: 0x00F0)
        }
        await #expect(throws: ATTError(requestOpcode: .readBlobRequest, handle: long, code: .invalidOffset)) {
            _ = try await pair.client.bearer.request(ATTReadBlobRequest(handle: long, offset: 400))
        }
        #expect(pair.server.counters.errorResponses == 5)
    }

    @Test func notificationsGoOnlyToASubscribedClient() async throws {
        let pair = Self.makePair()
        _ = try await pair.client.exchangeMTU()
        let events = try #require(pair.characteristics[Self.events])
        #expect(try await pair.server.notify(valueHandle: events.valueHandle, value: [0]) == false, "not subscribed yet")

        let database = try await pair.client.discoverDatabase(subscribeToServiceChanged: false)
        let characteristic = try #require(database.characteristic(Self.events, inService: Self.service)).characteristic
        let (values, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        try await pair.client.subscribe(characteristic, to: .notification, handler: ATTValueClosureHandler { value, _, _, _ in
            continuation.yield(Array(value))
        })
        #expect(pair.server.configuration(ofValue: events.valueHandle) == .notification)
        for index in 0..<3 { #expect(try await pair.server.notify(valueHandle: events.valueHandle, value: [UInt8(index)])) }
        var received: [[UInt8]] = []
        for await value in values {
            received.append(value)
            if received.count == 3 { break }
        }
        #expect(received == [[0], [1], [2]])
    }

    @Test func indicationsWaitForTheirConfirmation() async throws {
        let pair = Self.makePair()
        let database = try await pair.client.discoverDatabase(subscribeToServiceChanged: false)
        let alarms = try #require(database.characteristic(Self.alarms, inService: Self.service)).characteristic
        let subscribed = Lock<[AttributeHandle: GATTClientConfiguration]>([:])
        pair.server.setSubscriptionHandler { handle, configuration in subscribed.withLock { $0[handle] = configuration } }
        let count = Lock(0)
        try await pair.client.subscribe(alarms, to: .indication, handler: ATTValueClosureHandler { _, _, _, _ in
            count.withLock { $0 += 1 }
        })
        #expect(subscribed.withLock { $0 } == [alarms.valueHandle: .indication])
        for index in 0..<10 { try await pair.server.indicate(valueHandle: alarms.valueHandle, value: [UInt8(index)]) }
        #expect(count.withLock { $0 } == 10, "each indication returned after the client had it and confirmed")
        #expect(pair.server.counters.indicationsSent == 10)
    }

    @Test func anIndicationNobodyConfirmsTimesOutOnTheClock() async throws {
        let clock = VirtualClock()
        let database = GATTAttributeDatabase()
        database.addPrimaryService(Self.service)
        let alarms = database.addCharacteristic(Self.alarms, properties: [.indicate])
        let silent = PipeChannel()
        let bearer = ATTBearer(channel: silent, clock: clock)
        let server = GATTServerConnection(database: database, bearer: bearer, clock: clock, indicationTimeout: .seconds(30))
        // Enable indications as a client would, then never confirm.
        let cccd = try #require(alarms.clientConfigurationHandle).rawValue
        [UInt8(0x12), UInt8(cccd & 0xFF), UInt8(cccd >> 8), 0x02, 0x00].withUnsafeBytes { bearer.receive($0, at: HostTime(nanoseconds: 0)) }
        let outcome = Task { try await server.indicate(valueHandle: alarms.valueHandle, value: [1]) }
        await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(30))
        await #expect(throws: StrobeError.gatt(GATTError.indicationTimeout(handle: alarms.valueHandle))) { _ = try await outcome.value }
    }
}
