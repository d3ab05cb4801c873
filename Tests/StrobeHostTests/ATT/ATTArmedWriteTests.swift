import StrobeHCI
import Synchronization
import Testing
import StrobeHost

/// Write Requests armed ahead of a trigger: they hold the transaction slot until fired or
/// disarmed, each ends exactly once, and an armed write never blocks a request made later.
@Suite struct ATTArmedWriteTests {
    /// A writable value at handle 2, a readable one at 3.
    private static func values(_ server: TestGATTServer) {
        server.addService(BluetoothUUID(0x180F))
        server.add(BluetoothUUID(0x2A19), value: [0], writable: true)
        server.add(BluetoothUUID(0x2A19), value: [7])
    }

    private final class Count: Sendable {
        private let value = Atomic<Int>(0)
        func bump() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    @Test func anArmedWriteSendsNothingUntilItFiresAndThenExactlyOnce() async throws {
        let h = ATTTestHarness(build: Self.values)
        let disarmed = Count()
        let armed = try #require(try await h.bearer.armWrite(ATTWriteRequest(handle: 2, value: [9, 8]), onDisarmed: disarmed.bump))
        #expect(h.channel.sent.isEmpty)
        #expect(h.bearer.outstandingRequest == .writeRequest)
        #expect(armed.isArmed)

        #expect(armed.fire())
        #expect(!armed.fire())
        armed.settle()
        #expect(h.channel.sent == [[0x12, 2, 0, 9, 8]])
        #expect(h.server.value(at: 2) == [9, 8])
        // The Write Response ended the transaction: the next request goes straight out.
        #expect(try await h.client.read(handle: 3) == [7])
        #expect(h.bearer.statistics.protocolViolations == 0)
        #expect(disarmed.count == 0)
        #expect(h.channel.armedPackets.map(\.sendCount) == [1])
        #expect(await eventually { h.clock.sleeperCount == 0 })
    }

    @Test func aRequestMadeLaterDisarmsItOnce() async throws {
        let h = ATTTestHarness(build: Self.values)
        let disarmed = Count()
        let armed = try #require(try await h.bearer.armWrite(ATTWriteRequest(handle: 2, value: [9]), onDisarmed: disarmed.bump))
        #expect(try await h.client.read(handle: 3) == [7])
        #expect(disarmed.count == 1)
        #expect(!armed.fire())
        #expect(!armed.disarm())
        #expect(disarmed.count == 1)
        #expect(h.channel.sent == [[0x0A, 3, 0]])
        #expect(h.server.value(at: 2) == [0])
        // The held buffer went back, once.
        #expect(h.channel.armedPackets.map(\.releaseCount) == [1])
    }

    @Test func aFiredWriteKeepsTheSlotUntilItsResponse() async throws {
        let h = ATTTestHarness(build: Self.values)
        h.server.hold()
        let armed = try #require(try await h.bearer.armWrite(ATTWriteRequest(handle: 2, value: [1]), onDisarmed: {}))
        #expect(armed.fire())
        let read = Task { try await h.client.read(handle: 3) }
        #expect(await eventually { h.bearer.queuedRequestCount == 1 })
        #expect(h.channel.sent.count == 1)
        h.server.releaseHeld()
        #expect(try await read.value == [7])
        #expect(h.channel.sent == [[0x12, 2, 0, 1], [0x0A, 3, 0]])
    }

    @Test func aFiredWriteWithoutResponseTimesOutLikeAnyRequest() async throws {
        let h = ATTTestHarness(timeout: .seconds(30), build: Self.values)
        h.server.drop(.writeRequest)
        let armed = try #require(try await h.bearer.armWrite(ATTWriteRequest(handle: 2, value: [1]), onDisarmed: {}))
        #expect(armed.fire())
        armed.settle()
        await h.clock.waitForSleepers(count: 1)
        h.clock.advance(by: .seconds(30))
        #expect(await eventually { h.bearer.isClosed })
        #expect(h.bearer.closeReason == .transactionTimeout(request: .writeRequest))
    }

    @Test func closingTheBearerDisarmsIt() async throws {
        let h = ATTTestHarness(build: Self.values)
        let disarmed = Count()
        let armed = try #require(try await h.bearer.armWrite(ATTWriteRequest(handle: 2, value: [1]), onDisarmed: disarmed.bump))
        h.bearer.close(.local)
        #expect(disarmed.count == 1)
        #expect(!armed.fire())
        #expect(h.channel.sent.isEmpty)
        await #expect(throws: ATTBearerError.closed(.local)) {
            _ = try await h.bearer.armWrite(ATTWriteRequest(handle: 2, value: [1]), onDisarmed: {})
        }
    }

    @Test func aChannelThatCannotArmGivesTheSlotBack() async throws {
        let h = ATTTestHarness(build: Self.values)
        h.channel.setArmable(false)
        #expect(try await h.bearer.armWrite(ATTWriteRequest(handle: 2, value: [1]), onDisarmed: {}) == nil)
        #expect(h.bearer.outstandingRequest == nil)
        #expect(try await h.client.read(handle: 3) == [7])
    }

    @Test func aWriteLongerThanTheMTUIsNotArmed() async throws {
        let h = ATTTestHarness(build: Self.values)
        #expect(try await h.bearer.armWrite(ATTWriteRequest(handle: 2, value: [UInt8](repeating: 1, count: 21)), onDisarmed: {}) == nil)
        #expect(h.channel.armedPackets.isEmpty)
        #expect(try await h.client.read(handle: 3) == [7])
    }

    @Test func itDoesNotFireWhileTheLinkIsPartWayThroughAnotherPDU() async throws {
        let h = ATTTestHarness(build: Self.values)
        let armed = try #require(try await h.bearer.armWrite(ATTWriteRequest(handle: 2, value: [1]), onDisarmed: {}))
        h.channel.setLinkBusy(true)
        #expect(!armed.fire())
        #expect(armed.isArmed)
        h.channel.setLinkBusy(false)
        #expect(armed.fire())
        #expect(h.channel.sent == [[0x12, 2, 0, 1]])
    }
}
