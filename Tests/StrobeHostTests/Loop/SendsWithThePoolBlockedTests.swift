import StrobeBase
import StrobeHCI
import StrobeHost
import StrobeTestSupport
import Testing

/// What a link sends goes out from the host's loop, a thread of Strobe's own: with every thread
/// of the app's pool held, the GATT server still answers, L2CAP signalling still answers, and a
/// request an app task queued still goes out. A scripted controller on the real clock; the
/// peer's packets come from a thread of the test's own, as a transport's reader delivers them.
@Suite(.timeLimit(.minutes(1))) struct SendsWithThePoolBlockedTests {
    /// The ATT PDUs (CID 4) of the ACL packets `transport` was given.
    static func attSent(_ transport: ScriptedTransport) -> [[UInt8]] {
        transport.sent.compactMap { packet in
            guard packet.count >= 9, packet[0] == HCIPacketType.acl.rawValue, packet[7] == 0x04, packet[8] == 0x00 else { return nil }
            return Array(packet[9...])
        }
    }

    /// The LE signalling commands (CID 5) of the ACL packets `transport` was given.
    static func signalingSent(_ transport: ScriptedTransport) -> [[UInt8]] {
        transport.sent.compactMap { packet in
            guard packet.count >= 9, packet[0] == HCIPacketType.acl.rawValue, packet[7] == 0x05, packet[8] == 0x00 else { return nil }
            return Array(packet[9...])
        }
    }

    @Test func aPeersReadRequestIsAnsweredByTheGATTServerWithThePoolBlocked() async throws {
        let (transport, controller, connection) = try await ScriptedLink.openOnTheRealClock(role: .peripheral)
        defer { controller.close() }
        let database = GATTAttributeDatabase()
        database.addPrimaryService(BluetoothUUID(0x180F))
        let level = database.addCharacteristic(BluetoothUUID(0x2A19), properties: [.read], value: [87]).valueHandle
        connection.serve(database)
        let request: [UInt8] = [0x0A, UInt8(level.rawValue & 0xFF), UInt8(level.rawValue >> 8)]

        let seen = await withThePoolBlocked {
            transport.deliver(OversizedKFrameTests.acl([UInt8(request.count), 0x00, 0x04, 0x00] + request))
            return waitOnThisThread(for: .seconds(10)) { Self.attSent(transport).contains([0x0B, 87]) }
        }
        #expect(seen.poolWasBlocked)
        let answeredIn = try #require(seen.value, "no Read Response while the pool was held")
        #expect(answeredIn < .milliseconds(100))
    }

    @Test func anL2CAPConnectionParameterUpdateRequestIsAnsweredWithThePoolBlocked() async throws {
        let (transport, controller, _) = try await ScriptedLink.openOnTheRealClock(role: .central)
        defer { controller.close() }
        // Connection Parameter Update Request, identifier 7: 15 ms, latency 0, 2 s supervision.
        let request: [UInt8] = [0x12, 0x07, 0x08, 0x00, 0x0C, 0x00, 0x0C, 0x00, 0x00, 0x00, 0xC8, 0x00]

        let seen = await withThePoolBlocked {
            transport.deliver(OversizedKFrameTests.acl([UInt8(request.count), 0x00, 0x05, 0x00] + request))
            return waitOnThisThread(for: .seconds(10)) { Self.signalingSent(transport).contains { $0.first == 0x13 && $0[1] == 0x07 } }
        }
        #expect(seen.poolWasBlocked)
        let answeredIn = try #require(seen.value, "no Connection Parameter Update Response while the pool was held")
        #expect(answeredIn < .milliseconds(100))
        // Accepted (result 0x0000).
        #expect(Self.signalingSent(transport).first { $0.first == 0x13 }.map { Array($0.suffix(2)) } == [0x00, 0x00])
    }

    @Test func aQueuedWriteRequestIsSentWithThePoolBlocked() async throws {
        let (transport, controller, connection) = try await ScriptedLink.openOnTheRealClock(role: .central)
        defer { controller.close() }
        let app = ThreadOfItsOwnExecutor()
        defer { app.stop() }
        let handle = AttributeHandle(rawValue: 0x0021)

        let seen = await withThePoolBlocked { () -> Duration? in
            // The app queues the write on a thread of its own; the host sends it on its loop.
            Task(executorPreference: app) { try? await connection.gatt.write([0x01], handle: handle) }
            return waitOnThisThread(for: .seconds(10)) { Self.attSent(transport).contains([0x12, 0x21, 0x00, 0x01]) }
        }
        #expect(seen.poolWasBlocked)
        let sentIn = try #require(seen.value, "no Write Request while the pool was held")
        #expect(sentIn < .milliseconds(100))
    }
}
