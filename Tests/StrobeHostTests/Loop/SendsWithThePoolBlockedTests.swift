import StrobeBase
import StrobeHCI
import StrobeHost
import StrobeTestSupport
import Synchronization
import Testing

/// What a link sends goes out from the host's loop, a thread of Strobe's own: with every thread
/// of the app's pool held, the GATT server still answers, L2CAP signalling and the link layer's
/// parameter requests are still answered, SMP answers a Pairing Request and a Security Request, and a request an app task queued still goes out. A
/// scripted controller on the real clock; the peer's packets come from a thread of the test's
/// own, as a transport's reader delivers them. Each answer goes out within 100 ms, timed from
/// just before the peer's packet (or the app's call) to the write on the sending thread; without
/// the loop it would wait until the pool is let go, after `observe` gave up.
@Suite(.timeLimit(.minutes(1))) struct SendsWithThePoolBlockedTests {
    /// The ATT PDU (CID 4) an H4 ACL packet carries, if it does.
    static func att(in packet: [UInt8]) -> [UInt8]? { payload(in: packet, cid: 0x04) }

    /// The LE signalling command (CID 5) an H4 ACL packet carries, if it does.
    static func signaling(in packet: [UInt8]) -> [UInt8]? { payload(in: packet, cid: 0x05) }

    private static func payload(in packet: [UInt8], cid: UInt8) -> [UInt8]? {
        guard packet.count >= 9, packet[0] == HCIPacketType.acl.rawValue, packet[7] == cid, packet[8] == 0x00 else { return nil }
        return Array(packet[9...])
    }

    /// How long after `start` `transport` sent a packet `matching`, waiting for it on the
    /// caller's thread for at most 10 s; nil when none came.
    private static func sent(
        on transport: ScriptedTransport, after start: ContinuousClock.Instant, _ matching: @escaping ([UInt8]) -> Bool
    ) -> Duration? {
        guard waitOnThisThread(for: .seconds(10), until: { transport.firstSent(where: matching) != nil }) != nil else { return nil }
        return transport.firstSent(where: matching).map { start.duration(to: $0) }
    }

    /// With every pool thread held: delivers `packet` from the caller's thread, as a transport's
    /// reader would, and times the answer `matching` (nil when none came within 10 s).
    private static func answer(
        to packet: [UInt8], on transport: ScriptedTransport, _ matching: @escaping @Sendable ([UInt8]) -> Bool
    ) async throws -> PoolBlockedObservation<Duration?> {
        try await withThePoolBlocked { () -> Duration? in
            let start = ContinuousClock.now
            transport.deliver(packet)
            return sent(on: transport, after: start, matching)
        }
    }

    /// What each test asks of an answer: it came while every pool thread was held, within
    /// 100 ms.
    private static func expectAnswered(
        _ seen: PoolBlockedObservation<Duration?>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(seen.poolWasBlocked, sourceLocation: sourceLocation)
        let took = try #require(seen.value, "no \(what) while the pool was held", sourceLocation: sourceLocation)
        #expect(took < .milliseconds(100), sourceLocation: sourceLocation)
    }

    /// An ACL packet carrying `payload` on channel `cid` from the peer.
    private static func acl(_ payload: [UInt8], cid: UInt8) -> [UInt8] {
        OversizedKFrameTests.acl([UInt8(payload.count), 0x00, cid, 0x00] + payload)
    }

    @Test func aPeersReadRequestIsAnsweredByTheGATTServerWithThePoolBlocked() async throws {
        let (transport, controller, connection) = try await ScriptedLink.openOnTheRealClock(role: .peripheral)
        defer { controller.close() }
        let database = GATTAttributeDatabase()
        database.addPrimaryService(BluetoothUUID(0x180F))
        let level = database.addCharacteristic(BluetoothUUID(0x2A19), properties: [.read], value: [87]).valueHandle
        connection.serve(database)
        let request: [UInt8] = [0x0A, UInt8(level.rawValue & 0xFF), UInt8(level.rawValue >> 8)]

        let seen = try await Self.answer(to: Self.acl(request, cid: 0x04), on: transport) { Self.att(in: $0) == [0x0B, 87] }
        try Self.expectAnswered(seen, "Read Response")
    }

    @Test func anL2CAPConnectionParameterUpdateRequestIsAnsweredWithThePoolBlocked() async throws {
        let (transport, controller, _) = try await ScriptedLink.openOnTheRealClock(role: .central)
        defer { controller.close() }
        // Connection Parameter Update Request, identifier 7: 15 ms, latency 0, 2 s supervision.
        let request: [UInt8] = [0x12, 0x07, 0x08, 0x00, 0x0C, 0x00, 0x0C, 0x00, 0x00, 0x00, 0xC8, 0x00]

        let seen = try await Self.answer(to: Self.acl(request, cid: 0x05), on: transport) { Self.signaling(in: $0).map { $0.first == 0x13 && $0[1] == 0x07 } == true }
        try Self.expectAnswered(seen, "Connection Parameter Update Response")
        // Accepted (result 0x0000).
        #expect(transport.sent.compactMap(Self.signaling).first { $0.first == 0x13 }.map { Array($0.suffix(2)) } == [0x00, 0x00])
    }

    @Test func aPeersPairingRequestIsAnsweredWithThePoolBlocked() async throws {
        let (transport, controller, _) = try await ScriptedLink.openOnTheRealClock(role: .peripheral)
        defer { controller.close() }
        // Pairing Request: NoInputNoOutput, no OOB, bonding with Secure Connections, 16-byte keys.
        let request: [UInt8] = [0x01, 0x03, 0x00, 0x09, 0x10, 0x07, 0x07]

        let seen = try await Self.answer(to: Self.acl(request, cid: 0x06), on: transport) { Self.payload(in: $0, cid: 0x06)?.first == 0x02 }
        try Self.expectAnswered(seen, "Pairing Response")
    }

    /// A central with no bond answers a peripheral's Security Request by pairing: its Pairing
    /// Request goes out.
    @Test func aPeripheralsSecurityRequestIsAnsweredWithThePoolBlocked() async throws {
        let (transport, controller, _) = try await ScriptedLink.openOnTheRealClock(role: .central)
        defer { controller.close() }
        // Security Request: bonding with Secure Connections.
        let request: [UInt8] = [0x0B, 0x09]

        let seen = try await Self.answer(to: Self.acl(request, cid: 0x06), on: transport) { Self.payload(in: $0, cid: 0x06)?.first == 0x01 }
        try Self.expectAnswered(seen, "Pairing Request")
    }

    /// Answered on the thread that delivers the event (a transport's reader), as the policy
    /// decides.
    @Test func aRemoteConnectionParameterRequestIsAnsweredWithThePoolBlocked() async throws {
        let (transport, controller, _) = try await ScriptedLink.openOnTheRealClock(role: .central)
        defer { controller.close() }
        // LE Remote Connection Parameter Request: handle 0x0040, 15 ms, latency 0, 2 s supervision.
        let event: [UInt8] = [0x04, 0x3E, 0x0B, 0x06, 0x40, 0x00, 0x0C, 0x00, 0x0C, 0x00, 0x00, 0x00, 0xC8, 0x00]

        let seen = try await Self.answer(to: event, on: transport) { opcode(of: $0) == HCILERemoteConnectionParameterRequestReply.opcode }
        try Self.expectAnswered(seen, "LE Remote Connection Parameter Request Reply")
    }

    @Test func aQueuedWriteRequestIsSentWithThePoolBlocked() async throws {
        // Stopped last: the write's failure at the close resumes on it.
        let app = ThreadOfItsOwnExecutor()
        defer { app.stop() }
        let (transport, controller, connection) = try await ScriptedLink.openOnTheRealClock(role: .central)
        defer { controller.close() }
        let handle = AttributeHandle(rawValue: 0x0021)

        let queued = Stamp()
        let seen = try await withThePoolBlocked { () -> Duration? in
            // The app queues the write on a thread of its own; the host sends it on its loop.
            // Timed from the app's call, not from when the app's own thread got to run it.
            Task(executorPreference: app) {
                queued.at.withLock { $0 = ContinuousClock.now }
                try? await connection.gatt.write([0x01], handle: handle)
            }
            let isWrite: ([UInt8]) -> Bool = { Self.att(in: $0) == [0x12, 0x21, 0x00, 0x01] }
            guard waitOnThisThread(for: .seconds(10), until: { transport.firstSent(where: isWrite) != nil }) != nil,
                  let start = queued.at.withLock({ $0 }) else { return nil }
            return transport.firstSent(where: isWrite).map { start.duration(to: $0) }
        }
        try Self.expectAnswered(seen, "Write Request")
    }
}

/// When something happened, written on one thread and read on another.
private final class Stamp: Sendable {
    let at = Lock<ContinuousClock.Instant?>(nil)
}
