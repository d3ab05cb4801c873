import Foundation
import StrobeHCI
import Synchronization
import Testing

import StrobeCapture

@Suite(.serialized) struct ReplayTransportTests {
    struct Expected {
        var packets: [(type: HCIPacketType, payload: [UInt8], micros: Int64)] = []
        var hostToController = 0
        var records = 0
        var firstMicros: Int64?
    }

    /// The controller->host packets of a capture, from the reader (itself checked against tshark).
    static func expected(_ bytes: [UInt8]) throws -> Expected {
        var result = Expected()
        let reader = try BtsnoopReader(bytes: bytes)
        while true {
            let record: BtsnoopRecord?
            do { record = try reader.next() } catch { break }
            guard let record else { break }
            result.records += 1
            if result.firstMicros == nil { result.firstMicros = record.timestamp.unixMicroseconds }
            guard let type = record.packetType else { continue }
            if record.direction == .controllerToHost {
                result.packets.append((type, Array(record.payload), record.timestamp.unixMicroseconds))
            } else {
                result.hostToController += 1
            }
        }
        return result
    }

    @Test(arguments: [
        "pixel8_pongbot-robot_fitbit-inspire3.btsnoop", "lumentree-inverter_att-only.btsnoop",
        "galaxys7_miband2_smp.btsnoop",
    ])
    func deliversExactlyTheControllerToHostPacketsInOrder(_ name: String) async throws {
        let path = Fixtures.capturePath(name)
        let expected = try Self.expected(try Fixtures.captureBytes(name))
        let origin = HostTime(nanoseconds: 5_000_000_000)
        let transport = ReplayTransport(path: path, timeBase: .captureOffsets(origin: origin))
        let sink = CollectingSink()
        try transport.start(sink)
        let reason = await sink.closed()
        #expect(reason == .some(.endOfCapture(records: expected.records)))

        let packets = sink.packets
        #expect(packets.count == expected.packets.count)
        #expect(packets.map(\.type) == expected.packets.map(\.type))
        #expect(packets.map(\.payload) == expected.packets.map(\.payload))
        // Capture spacing from the origin, never going backwards.
        var previous = origin
        var wrongTimes = 0
        for (packet, want) in zip(packets, expected.packets) {
            let offset = max(0, want.micros - (expected.firstMicros ?? want.micros))
            let time = max(previous, HostTime(nanoseconds: origin.nanoseconds + UInt64(offset) * 1000))
            if packet.time != time { wrongTimes += 1 }
            previous = time
        }
        #expect(wrongTimes == 0)

        let statistics = transport.statistics
        #expect(statistics.delivered == expected.packets.count)
        #expect(statistics.skipped == expected.hostToController)
        #expect(statistics.nonHCI == 0)
        #expect(sink.closeCount == 1)

        // The delivered count against tshark's received frames.
        let received = try await TShark.fields(path, ["frame.number"], filter: "hci_h4.direction == 0x01")
        #expect(statistics.delivered == received.count)
    }

    @Test func deliveryTimeBaseStampsTheHostClock() async throws {
        let before = HostTime.now()
        let transport = ReplayTransport(path: Fixtures.capturePath("revcar-toy_att-only.btsnoop"), timeBase: .deliveryTime)
        let sink = CollectingSink()
        try transport.start(sink)
        _ = await sink.closed()
        let after = HostTime.now()
        let times = sink.packets.map(\.time)
        #expect(!times.isEmpty)
        #expect(times.allSatisfy { $0 >= before && $0 <= after })
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func malformedCaptureClosesWithATypedReason() async throws {
        var bytes = try Fixtures.captureBytes("revcar-toy_att-only.btsnoop")
        bytes.removeLast(3)
        let expected = try Self.expected(bytes)
        let transport = ReplayTransport(bytes: bytes)
        let sink = CollectingSink()
        try transport.start(sink)
        let reason = await sink.closed()
        guard case .some(.malformedCapture(let text)) = reason else {
            Issue.record("expected malformedCapture, got \(String(describing: reason))")
            return
        }
        #expect(text.contains("record \(expected.records)"))
        #expect(text.contains("3 bytes short"))
        #expect(sink.packets.map(\.payload) == expected.packets.map(\.payload))
    }

    @Test func unreadableCaptureFailsToStart() throws {
        let notBtsnoop = ReplayTransport(bytes: Array("definitely not a capture".utf8), name: "replay:junk")
        #expect(throws: TransportError.self) { try notBtsnoop.start(CollectingSink()) }
        do {
            try notBtsnoop.start(CollectingSink())
        } catch {
            guard case .cannotOpen(let endpoint, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(endpoint == "replay:junk")
            #expect(reason.contains("not a btsnoop file"))
        }
        let missing = ReplayTransport(path: "/nonexistent/capture.btsnoop")
        #expect(throws: TransportError.self) { try missing.start(CollectingSink()) }
    }

    @Test func closeStopsTheReplayAndReportsOnce() async throws {
        let transport = ReplayTransport(path: Fixtures.capturePath("galaxys7_miband2_smp.btsnoop"))
        let sink = CollectingSink(onPacket: { count in
            if count == 5 { transport.close() }
        })
        try transport.start(sink)
        let reason = await sink.closed()
        #expect(reason == .some(nil))
        #expect(sink.packets.count == 5)
        #expect(transport.statistics.delivered == 5)
        transport.close()
        #expect(sink.closeCount == 1)
    }

    @Test func sendIsAcceptedAndCountedWhileRunning() async throws {
        let transport = ReplayTransport(path: Fixtures.capturePath("revcar-toy_att-only.btsnoop"))
        #expect(throws: TransportError.notOpen) { try transport.send([0x01, 0x03, 0x0C, 0x00]) }
        let failures = Atomic(0)
        let sink = CollectingSink(onPacket: { count in
            // From the reader thread, as a host answering the controller would.
            if count <= 3 {
                do { try transport.send([0x01, 0x03, 0x0C, 0x00]) } catch { failures.add(1, ordering: .relaxed) }
            }
        })
        try transport.start(sink)
        #expect(throws: TransportError.notOpen) { try transport.start(CollectingSink()) }
        _ = await sink.closed()
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(transport.statistics.sent == 3)
        #expect(throws: TransportError.notOpen) { try transport.send([0x01, 0x03, 0x0C, 0x00]) }
    }

    @Test func monitorCaptureReplaysItsHCIPacketsOnly() async throws {
        let path = try Fixtures.scratchPath("monitor.btsnoop")
        defer { Fixtures.remove(path) }
        let writer = try BtsnoopWriter(path: path, datalink: .linuxMonitor)
        let address = try #require(BluetoothAddress("00:11:22:33:44:55"))
        try writer.writeNewIndex(adapterIndex: 0, address: address, name: "hci0", at: BtsnoopTimestamp(unixMicroseconds: 1))
        try writer.write(.command, direction: .hostToController, payload: [0x03, 0x0C, 0x00], at: BtsnoopTimestamp(unixMicroseconds: 2))
        try writer.write(.event, direction: .controllerToHost, payload: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], at: BtsnoopTimestamp(unixMicroseconds: 3))
        try writer.write(.iso, direction: .controllerToHost, payload: [0x60, 0x20, 0x01, 0x00, 0x09], at: BtsnoopTimestamp(unixMicroseconds: 4))
        try writer.close()
        let transport = ReplayTransport(path: path)
        let sink = CollectingSink()
        try transport.start(sink)
        #expect(await sink.closed() == .some(.endOfCapture(records: 4)))
        #expect(sink.packets.map(\.type) == [.event, .iso])
        #expect(transport.statistics == {
            var s = ReplayStatistics()
            s.delivered = 2
            s.skipped = 1
            s.nonHCI = 1
            return s
        }())
    }

    @Test func captureOffsetsSaturate() {
        let origin = HostTime(nanoseconds: 10)
        #expect(ReplayTransport.offset(origin, by: 5, since: 7) == origin)
        #expect(ReplayTransport.offset(origin, by: 7, since: 5) == HostTime(nanoseconds: 2010))
        #expect(ReplayTransport.offset(origin, by: Int64.max, since: Int64.min).nanoseconds == UInt64.max)
        #expect(ReplayTransport.offset(origin, by: Int64.min, since: Int64.max) == origin)
    }
}
