import StrobeHCI
import StrobeBase
import Synchronization
import Testing
import StrobeHost

/// One link, two hosts, each both a GATT client and a GATT server on its one bearer: whichever
/// side exchanges the MTU, both roles on both sides use it.
@Suite(.timeLimit(.minutes(1))) struct BothRolesTests {
    static let service = BluetoothUUID("8D1E0001-3B5A-4C6E-9F00-5A7B0BE0C0DE")
    static let stream = BluetoothUUID("8D1E0004-3B5A-4C6E-9F00-5A7B0BE0C0DE")

    struct Side {
        let bearer: ATTBearer
        let client: GATTClient
        let server: GATTServerConnection
        let streamHandle: AttributeHandle
    }

    /// Two sides whose bearers announce `mtuA` and `mtuB`.
    static func link(mtuA: Int, mtuB: Int) -> (Side, Side) {
        let aToB = PipeChannel()
        let bToA = PipeChannel()
        func side(_ channel: PipeChannel, mtu: Int) -> Side {
            let database = GATTAttributeDatabase()
            database.addPrimaryService(service)
            let handle = database.addCharacteristic(stream, properties: [.notify]).valueHandle
            let bearer = ATTBearer(channel: channel, configuration: .init(preferredMTU: mtu))
            return Side(bearer: bearer, client: GATTClient(bearer: bearer),
                        server: GATTServerConnection(database: database, bearer: bearer), streamHandle: handle)
        }
        let a = side(aToB, mtu: mtuA)
        let b = side(bToA, mtu: mtuB)
        aToB.deliver { pdu in pdu.withUnsafeBytes { b.bearer.receive($0, at: HostTime(nanoseconds: 0)) } }
        bToA.deliver { pdu in pdu.withUnsafeBytes { a.bearer.receive($0, at: HostTime(nanoseconds: 0)) } }
        return (a, b)
    }

    /// Subscribes `client` to the peer's stream, has the peer notify a 300-byte value, and
    /// returns how much of it arrived.
    static func notifiedLength(from server: Side, to client: Side) async throws -> Int {
        let database = try await client.client.discoverDatabase(subscribeToServiceChanged: false)
        let characteristic = try #require(database.characteristic(stream, inService: service)).characteristic
        let received = Lock<[Int]>([])
        let arrived = Waiter<Void>()
        try await client.client.subscribe(characteristic, handler: ATTValueClosureHandler { value, _, _, _ in
            received.withLock { $0.append(value.count) }
            arrived.succeed(())
        })
        #expect(try await server.server.notify(valueHandle: server.streamHandle, value: [UInt8](repeating: 0xAB, count: 300)))
        try await arrived.wait()
        return received.withLock { $0.first ?? 0 }
    }

    @Test(arguments: [true, false])
    func theMTUEitherSideExchangesSizesNotificationsBothWays(exchangedByA: Bool) async throws {
        let (a, b) = Self.link(mtuA: 247, mtuB: 185)
        let exchanged = try await (exchangedByA ? a : b).client.exchangeMTU()
        #expect(exchanged == 185)
        #expect(a.bearer.mtu == 185 && b.bearer.mtu == 185)
        #expect(a.server.mtu == 185 && b.server.mtu == 185)
        // ATT_MTU - 3 bytes of value, both directions (not the 20 of the default MTU).
        #expect(try await Self.notifiedLength(from: a, to: b) == 182)
        #expect(try await Self.notifiedLength(from: b, to: a) == 182)
        // The other side's own exchange changes nothing more: one MTU per link.
        #expect(try await (exchangedByA ? b : a).client.exchangeMTU() == 185)
        #expect(a.bearer.statistics.protocolViolations == 0 && b.bearer.statistics.protocolViolations == 0)
    }

    @Test func bothClientsRequestAtOnceWhileBothServersAnswer() async throws {
        let (a, b) = Self.link(mtuA: 247, mtuB: 247)
        async let fromA = a.client.discoverDatabase(subscribeToServiceChanged: false)
        async let fromB = b.client.discoverDatabase(subscribeToServiceChanged: false)
        let (seenByA, seenByB) = try await (fromA, fromB)
        #expect(seenByA.service(Self.service) != nil && seenByB.service(Self.service) != nil)
        #expect(a.server.counters.errorResponses > 0 && b.server.counters.errorResponses > 0)  // Attribute Not Found ends each walk
    }
}
