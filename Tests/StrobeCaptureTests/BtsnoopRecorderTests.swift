import Foundation
import StrobeHCI
import StrobeBase
import Synchronization
import Testing

import StrobeCapture

/// A transport driven by the test: `deliver` plays the controller, `send` is kept.
final class ScriptedTransport: HCITransport {
    let name = "scripted"
    private let state = Lock<(sink: (any HCIPacketSink)?, sent: [[UInt8]], closed: Bool)>((nil, [], false))

    func start(_ sink: any HCIPacketSink) throws(TransportError) {
        state.withLock { $0.sink = sink }
    }

    func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) {
        let packet = Array(h4Packet)
        try state.withLock { state throws(TransportError) in
            guard !state.closed else { throw .notOpen }
            state.sent.append(packet)
        }
    }

    func close() {
        let sink = state.withLock { state -> (any HCIPacketSink)? in
            guard !state.closed else { return nil }
            state.closed = true
            return state.sink
        }
        sink?.transportDidClose(nil)
    }

    func deliver(_ type: HCIPacketType, _ payload: [UInt8], at time: HostTime) {
        guard let sink = state.withLock({ $0.sink }) else { return }
        payload.withUnsafeBytes { sink.transportDidReceive(type, payload: $0, at: time) }
    }

    var sent: [[UInt8]] { state.withLock { $0.sent } }
}

/// A clock that ticks one microsecond per reading, from a fixed instant.
final class TickingClock: Sendable {
    static let start: Int64 = 1_750_000_000_000_000
    private let ticks = Atomic<Int64>(0)
    func read() -> BtsnoopTimestamp {
        BtsnoopTimestamp(unixMicroseconds: Self.start + ticks.add(1, ordering: .relaxed).oldValue)
    }
}

@Suite(.serialized) struct BtsnoopRecorderTests {
    static func received(_ i: Int) -> (HCIPacketType, [UInt8]) {
        i % 2 == 0
            ? (.event, [0x13, 0x05, 0x01, 0x40, 0x00, UInt8(i & 0xFF), UInt8(i >> 8)])
            : (.acl, [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x1B, UInt8(i & 0xFF), UInt8(i >> 8)])
    }

    static func sent(_ i: Int) -> [UInt8] {
        i % 2 == 0
            ? [0x01, 0x01, 0x20, 0x02, UInt8(i & 0xFF), UInt8(i >> 8)]
            : [0x02, 0x40, 0x00, 0x03, 0x00, 0x52, UInt8(i & 0xFF), UInt8(i >> 8)]
    }

    @Test func recordsBothWaysFromConcurrentThreadsAndForwardsUnchanged() async throws {
        let path = try Fixtures.scratchPath("tee.btsnoop")
        defer { Fixtures.remove(path) }
        let inner = ScriptedTransport()
        let clock = TickingClock()
        let recorder = try BtsnoopRecorder(wrapping: inner, path: path, clock: { clock.read() })
        let sink = CollectingSink()
        try recorder.start(sink)
        let count = 300

        // The controller side and the host side run at once, on different threads.
        async let delivering: Void = Task.detached {
            for i in 0..<count {
                let (type, payload) = Self.received(i)
                inner.deliver(type, payload, at: HostTime(nanoseconds: UInt64(i)))
            }
        }.value
        async let sending: Int = Task.detached {
            var failures = 0
            for i in 0..<count {
                do { try recorder.send(Self.sent(i)) } catch { failures += 1 }
            }
            return failures
        }.value
        _ = await delivering
        #expect(await sending == 0)
        recorder.close()
        #expect(await sink.closed() == .some(nil))

        // Forwarded unchanged, both ways.
        #expect(sink.packets.map(\.payload) == (0..<count).map { Self.received($0).1 })
        #expect(sink.packets.map(\.type) == (0..<count).map { Self.received($0).0 })
        #expect(sink.packets.map(\.time) == (0..<count).map { HostTime(nanoseconds: UInt64($0)) })
        #expect(inner.sent == (0..<count).map(Self.sent))
        #expect(recorder.statistics.recorded == 2 * count)
        #expect(recorder.statistics.failures == 0)

        // Recorded: every packet once, each direction in its own order, timestamps from the clock.
        let reader = try BtsnoopReader(path: path)
        #expect(reader.datalink == .h4)
        let records = try readAll(reader)
        #expect(records.count == 2 * count)
        #expect(records.map(\.unixMicroseconds) == (0..<Int64(2 * count)).map { TickingClock.start + $0 })
        let incoming = records.filter { $0.direction == .controllerToHost }
        let outgoing = records.filter { $0.direction == .hostToController }
        #expect(incoming.map(\.payload) == (0..<count).map { Self.received($0).1 })
        #expect(incoming.map(\.flags) == (0..<count).map { $0 % 2 == 0 ? 3 : 1 })
        #expect(outgoing.map { [$0.packetTypeRawValue.map(UInt8.init) ?? 0xFF] + $0.payload } == (0..<count).map(Self.sent))
        #expect(outgoing.map(\.flags) == (0..<count).map { $0 % 2 == 0 ? 2 : 0 })

        let frames = try await TShark.fields(path, ["hci_h4.type", "hci_h4.direction"])
        #expect(frames.count == records.count)
        #expect(frames.map { TShark.hex($0[0]) } == records.map(\.packetTypeRawValue))
    }

    @Test func recordsAReplayedCaptureWithTheHostsAnswers() async throws {
        let path = try Fixtures.scratchPath("replay-tee.btsnoop")
        defer { Fixtures.remove(path) }
        let source = Fixtures.capturePath("pixel8_pongbot-robot_fitbit-inspire3.btsnoop")
        let replay = ReplayTransport(path: source)
        let clock = TickingClock()
        let recorder = try BtsnoopRecorder(wrapping: replay, path: path, clock: { clock.read() })
        let answer: [UInt8] = [0x01, 0x03, 0x0C, 0x00]
        let sink = CollectingSink(onPacket: { count in
            if count % 100 == 0 { try? recorder.send(answer) }
        })
        try recorder.start(sink)
        guard case .some(.endOfCapture) = await sink.closed() else {
            Issue.record("the replay did not reach its end")
            return
        }
        let delivered = sink.packets
        let answers = delivered.count / 100
        #expect(replay.statistics.sent == answers)

        let records = try readAll(try BtsnoopReader(path: path))
        #expect(records.count == delivered.count + answers)
        let incoming = records.filter { $0.direction == .controllerToHost }
        #expect(incoming.map(\.payload) == delivered.map(\.payload))
        #expect(incoming.map(\.kind) == delivered.map { .hci($0.type) })
        // Each answer follows the packet that prompted it.
        for (position, record) in records.enumerated() where record.direction == .hostToController {
            #expect(record.payload == Array(answer.dropFirst()))
            let before = records[..<position].filter { $0.direction == .controllerToHost }.count
            #expect(before % 100 == 0 && before > 0)
        }
        #expect(try await TShark.fields(path, ["frame.number"]).count == records.count)
    }

    @Test func undecodableOutgoingBytesAreKeptVerbatim() async throws {
        let path = try Fixtures.scratchPath("odd.btsnoop")
        defer { Fixtures.remove(path) }
        let inner = ScriptedTransport()
        let recorder = try BtsnoopRecorder(wrapping: inner, path: path)
        let sink = CollectingSink()
        try recorder.start(sink)
        try recorder.send([0xFF, 0x01, 0x02])
        recorder.close()
        _ = await sink.closed()
        #expect(inner.sent == [[0xFF, 0x01, 0x02]])
        let records = try readAll(try BtsnoopReader(path: path))
        #expect(records.count == 1)
        #expect(records.first?.kind == .nonHCI)
        #expect(records.first?.payload == [0xFF, 0x01, 0x02])
        #expect(records.first?.flags == 0)
    }

    @Test func recordingFailuresAreCountedAndTrafficFlows() async throws {
        let path = try Fixtures.scratchPath("monitor.btsnoop")
        defer { Fixtures.remove(path) }
        let inner = ScriptedTransport()
        let writer = try BtsnoopWriter(path: path, datalink: .linuxMonitor, flushEachRecord: true)
        let recorder = BtsnoopRecorder(wrapping: inner, writer: writer)
        let sink = CollectingSink()
        try recorder.start(sink)
        // The monitor format has no opcode for a command coming from the controller.
        inner.deliver(.command, [0x03, 0x0C, 0x00], at: HostTime(nanoseconds: 1))
        inner.deliver(.event, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], at: HostTime(nanoseconds: 2))
        recorder.close()
        _ = await sink.closed()
        #expect(sink.packets.map(\.type) == [.command, .event])
        #expect(recorder.statistics.recorded == 1)
        #expect(recorder.statistics.failures == 1)
        #expect(recorder.statistics.lastError == .unrepresentable(type: .command, direction: .controllerToHost, datalink: .linuxMonitor))
        let records = try readAll(try BtsnoopReader(path: path))
        #expect(records.map(\.kind) == [.hci(.event)])
        // Finishing says the capture is incomplete, with why.
        let why = BtsnoopError.unrepresentable(type: .command, direction: .controllerToHost, datalink: .linuxMonitor)
        #expect(throws: BtsnoopError.recordsNotWritten(count: 1, reason: why.description)) {
            try recorder.finishRecording()
        }
    }

    @Test func defaultClockIsTheWallClock() async throws {
        let path = try Fixtures.scratchPath("wall.btsnoop")
        defer { Fixtures.remove(path) }
        let inner = ScriptedTransport()
        let recorder = try BtsnoopRecorder(wrapping: inner, path: path)
        let sink = CollectingSink()
        try recorder.start(sink)
        let before = BtsnoopTimestamp.now()
        try recorder.send([0x01, 0x03, 0x0C, 0x00])
        let after = BtsnoopTimestamp.now()
        recorder.close()
        _ = await sink.closed()
        let record = try #require(try readAll(try BtsnoopReader(path: path)).first)
        #expect(record.unixMicroseconds >= before.unixMicroseconds && record.unixMicroseconds <= after.unixMicroseconds)
    }

    @Test func finishRecordingStopsTheFileButNotTheTraffic() async throws {
        let path = try Fixtures.scratchPath("finish.btsnoop")
        defer { Fixtures.remove(path) }
        let inner = ScriptedTransport()
        let recorder = try BtsnoopRecorder(wrapping: inner, path: path)
        let sink = CollectingSink()
        try recorder.start(sink)
        try recorder.send([0x01, 0x03, 0x0C, 0x00])
        try recorder.finishRecording()
        try recorder.send([0x01, 0x03, 0x0C, 0x00])
        #expect(inner.sent.count == 2)
        #expect(try readAll(try BtsnoopReader(path: path)).count == 1)
        recorder.close()
        _ = await sink.closed()
    }
}
