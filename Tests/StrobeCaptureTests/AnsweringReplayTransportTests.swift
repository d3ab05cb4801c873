import Foundation
import StrobeHCI
import Synchronization
import Testing

import StrobeCapture

/// The answering replay on a small capture written here: Reset answered, a vendor event at the
/// start, scanning enabled 1 s in, then two advertising reports 200 ms and 400 ms after that.
@Suite(.timeLimit(.minutes(1))) struct AnsweringReplayTransportTests {
    static let resetComplete: [UInt8] = [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
    static let vendorEvent: [UInt8] = [0xFF, 0x01, 0x42]
    static let scanEnable: [UInt8] = [0x0C, 0x20, 0x02, 0x01, 0x00]
    /// Recorded with Num_HCI_Command_Packets 0, which the replay raises to 1.
    static let scanEnableComplete: [UInt8] = [0x0E, 0x04, 0x00, 0x0C, 0x20, 0x00]
    static func report(_ last: UInt8) -> [UInt8] {
        [0x3E, 0x0C, 0x02, 0x01, 0x00, 0x01, last, 0x02, 0x03, 0x04, 0x05, 0xC6, 0x00, 0xC4]
    }

    static func capture() throws -> String {
        let path = try Fixtures.scratchPath("answering-replay-\(UUID().uuidString).btsnoop")
        let writer = try BtsnoopWriter(path: path)
        let start: Int64 = 1_700_000_000_000_000
        func at(_ ms: Int64) -> BtsnoopTimestamp { BtsnoopTimestamp(unixMicroseconds: start + ms * 1000) }
        try writer.write(.command, direction: .hostToController, payload: [0x03, 0x0C, 0x00], at: at(0))
        try writer.write(.event, direction: .controllerToHost, payload: resetComplete, at: at(1))
        try writer.write(.event, direction: .controllerToHost, payload: vendorEvent, at: at(2))
        try writer.write(.command, direction: .hostToController, payload: scanEnable, at: at(1000))
        try writer.write(.event, direction: .controllerToHost, payload: scanEnableComplete, at: at(1001))
        try writer.write(.event, direction: .controllerToHost, payload: report(1), at: at(1200))
        try writer.write(.event, direction: .controllerToHost, payload: report(2), at: at(1400))
        try writer.close()
        return path
    }

    /// A sink that can be awaited until it holds `count` packets.
    final class Counted: Sendable {
        let sink: CollectingSink
        private let counts: AsyncStream<Int>
        init() {
            let (counts, continuation) = AsyncStream.makeStream(of: Int.self)
            self.counts = counts
            sink = CollectingSink { continuation.yield($0) }
        }
        func until(_ count: Int) async -> [CollectingSink.Packet] {
            if sink.packets.count >= count { return sink.packets }
            for await seen in counts where seen >= count { break }
            return sink.packets
        }
    }

    static func send(_ transport: AnsweringReplayTransport, command: [UInt8]) throws {
        try ([HCIPacketType.command.rawValue] + command).withUnsafeBytes { try transport.send($0) }
    }

    @Test func commandsGetTheRecordedAnswerOrAGenericSuccessAndTheRestWaitsForScanning() async throws {
        let path = try Self.capture()
        defer { Fixtures.remove(path) }
        let transport = AnsweringReplayTransport(path: path, speed: .maximum)
        let counted = Counted()
        try transport.start(counted.sink)

        // Before scanning: only what the capture's controller sent before its host scanned.
        #expect(await counted.until(1).map(\.payload) == [Self.vendorEvent])
        try Self.send(transport, command: [0x03, 0x0C, 0x00])         // Reset: recorded
        try Self.send(transport, command: [0x18, 0x20, 0x00])         // LE Rand: not in the capture
        try Self.send(transport, command: [0x02, 0x20, 0x00])         // LE Read Buffer Size: generic buffers
        let answers = await counted.until(4).map(\.payload)
        #expect(answers[1] == Self.resetComplete)
        #expect(answers[2] == [0x0E, 0x0C, 0x01, 0x18, 0x20, 0x00] + [UInt8](repeating: 0, count: 8))
        #expect(answers[3] == [0x0E, 0x07, 0x01, 0x02, 0x20, 0x00, 0xFB, 0x00, 0x08])

        try Self.send(transport, command: Self.scanEnable)
        let all = await counted.until(7).map(\.payload)
        // The answer first (credit raised to 1), then the reports in capture order.
        #expect(all[4] == [0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00])
        #expect(all[5...] == [Self.report(1), Self.report(2)])

        // Played out, it keeps answering until closed.
        try Self.send(transport, command: [0x03, 0x0C, 0x00])
        #expect(await counted.until(8).last?.payload == Self.resetComplete)
        transport.close()
        #expect(await counted.sink.closed() == .some(nil))
        #expect(transport.statistics.delivered == 8)
        #expect(transport.statistics.sent == 5)
        #expect(throws: TransportError.self) { try Self.send(transport, command: [0x03, 0x0C, 0x00]) }
    }

    /// A capture that starts with scanning already on (reports before any scan enable): the
    /// reports still wait for the host to enable scanning, and come after the answers before it.
    @Test func reportsBeforeAnyScanEnableWaitForTheHostToScan() async throws {
        let path = try Fixtures.scratchPath("answering-replay-\(UUID().uuidString).btsnoop")
        defer { Fixtures.remove(path) }
        let writer = try BtsnoopWriter(path: path)
        let start: Int64 = 1_700_000_000_000_000
        try writer.write(.event, direction: .controllerToHost, payload: Self.vendorEvent, at: BtsnoopTimestamp(unixMicroseconds: start))
        try writer.write(.event, direction: .controllerToHost, payload: Self.report(1), at: BtsnoopTimestamp(unixMicroseconds: start + 10))
        try writer.write(.event, direction: .controllerToHost, payload: Self.report(2), at: BtsnoopTimestamp(unixMicroseconds: start + 20))
        try writer.close()

        let transport = AnsweringReplayTransport(path: path, speed: .maximum)
        let counted = Counted()
        try transport.start(counted.sink)
        _ = await counted.until(1)
        try Self.send(transport, command: [0x03, 0x0C, 0x00])
        try Self.send(transport, command: Self.scanEnable)
        let packets = await counted.until(5).map(\.payload)
        transport.close()
        #expect(packets[0] == Self.vendorEvent)
        #expect(packets[1][0] == 0x0E && packets[1][3...4] == [0x03, 0x0C])  // Reset's answer (generic)
        #expect(packets[2][0] == 0x0E && packets[2][3...4] == [0x0C, 0x20])  // scan enable's answer
        #expect(packets[3...] == [Self.report(1), Self.report(2)])
    }

    /// The reports come 200 ms and 400 ms after the capture's scan enable: at speed 2 they are
    /// due 100 ms and 200 ms after ours. (Lower bounds only: a loaded machine may deliver later,
    /// never earlier.)
    @Test func speedDividesTheCapturesSpacing() async throws {
        let path = try Self.capture()
        defer { Fixtures.remove(path) }
        let transport = AnsweringReplayTransport(path: path, speed: .factor(2))
        let counted = Counted()
        try transport.start(counted.sink)
        _ = await counted.until(1)
        let enabled = HostTime.now()
        try Self.send(transport, command: Self.scanEnable)
        let packets = await counted.until(4)
        transport.close()
        let first = packets[2].time.nanoseconds, second = packets[3].time.nanoseconds
        #expect(first >= enabled.nanoseconds + 99_000_000)
        #expect(second >= enabled.nanoseconds + 199_000_000)
        #expect(second >= first)
    }

    @Test func aFileThatIsNotACaptureFailsToStart() throws {
        let transport = AnsweringReplayTransport(bytes: Array("not a capture".utf8), name: "replay:junk")
        #expect(throws: TransportError.self) { try transport.start(CollectingSink()) }
    }

    @Test(arguments: ["1", "10", "0.25", "max"])
    func speedsParse(_ text: String) throws {
        let speed = try #require(ReplaySpeed(text))
        #expect(ReplaySpeed(speed.description) == speed)
    }

    @Test(arguments: ["0", "-1", "fast", "", "nan", "inf"])
    func badSpeedsAreRefused(_ text: String) {
        #expect(ReplaySpeed(text) == nil)
    }
}
