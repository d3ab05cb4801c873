import Foundation
import Strobe
import Testing

/// The stack against Bumble's GATT server through a proxy that breaks Bumble's controller stream
/// mid-stream (`FaultProxy`): the link ends with the cause, the notifications that arrived are an
/// exact prefix of what was sent (nothing silently lost or reordered before the break), and no
/// wait is left hanging.
@Suite(.serialized, .timeLimit(.minutes(5))) struct BumbleFaultProxyTests {
    static let causes: [(fault: String, cause: String)] = [
        ("close", "the controller closed the link"),
        ("truncate", "the stream ended inside an ACL packet begun at byte "),
        ("junk", ": 0x09 is no H4 packet type"),
        ("drop", "the H4 stream lost its framing at byte "),
        ("oversize", "an ACL packet announces 65535 bytes, more than the transport accepts"),
    ]

    @Test(arguments: causes)
    func aBrokenStreamEndsTheLinkWithItsCauseAndLosesNothingBeforeIt(fault: String, cause: String) async throws {
        let count = 5_000
        let peripheral = try await BumblePeripheral(arguments: ["--notify-count", "\(count)"])
        let proxy = try await FaultProxy(upstream: peripheral.transport, fault: fault, at: 300)
        let host = try await HostUnderTest(transport: proxy.endpoint)
        defer { host.close() }
        let (connection, characteristics) = try await GATTInteropTests.connect(host, name: peripheral.name)
        let ring = NotificationRing(capacity: 16_384, maxValueSize: 512)
        try await connection.gatt.subscribe(try #require(characteristics[GATTInteropTests.notify]), to: .notification, handler: ring)
        // The ring ends when the link does (the bearer closes it).
        var sequences: [UInt32] = []
        for await notification in ring.notifications() {
            sequences.append(notification.value.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
        }
        #expect(try await proxy.applied()?["fault"] as? String == fault)
        #expect(!sequences.isEmpty && sequences.count < count, "\(sequences.count) arrived")
        #expect(sequences == (0..<UInt32(sequences.count)).map { $0 }, "an exact prefix")
        #expect(ring.counters.dropped == 0)
        let reason = try #require(connection.closeReason)
        #expect("\(reason)".contains(cause), "\(reason)")
        // Every later request fails at once with that cause rather than waiting.
        let longRead = try #require(characteristics[GATTInteropTests.longRead])
        await #expect(throws: (any Error).self) { _ = try await connection.gatt.read(handle: longRead.valueHandle) }
        _ = try? await peripheral.stop()
    }

    /// `strobe gatt subscribe` through the same faults: exit 1 with the cause after a summary that
    /// counts what arrived, with no sequence gap among it.
    @Test(arguments: causes)
    func gattSubscribeFailsWithTheCauseAfterAnHonestSummary(fault: String, cause: String) async throws {
        let peripheral = try await BumblePeripheral(arguments: ["--notify-count", "5000"])
        let proxy = try await FaultProxy(upstream: peripheral.transport, fault: fault, at: 300)
        let result = try await StrobeCommand.run(
            ["--transport", proxy.endpoint, "gatt", "--name", peripheral.name, "subscribe", GATTCommandTests.notify,
             "--count", "5000", "--json"])
        _ = try? await peripheral.stop()
        #expect(try await proxy.applied()?["fault"] as? String == fault)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("the link to the device was lost"), "\(result.stderr)")
        #expect(result.stderr.contains(cause), "\(result.stderr)")
        let lines = try JSONLines.objects(result.stdout)
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        let count = try #require(summary["count"] as? Int)
        #expect(count > 0 && count < 5000)
        #expect(count == lines.count - 1)
        #expect(summary["sequenceGaps"] as? Int == 0)
    }
}
