import Foundation
import Testing

/// The streaming commands through a proxy that breaks the controller's stream mid-stream
/// (`FaultProxy`, in front of `strobe sim serve`): every fault ends the command with exit 1 and
/// the cause, after what arrived was printed; none reports success with the rest missing.
@Suite(.serialized, .timeLimit(.minutes(5))) struct FaultProxyCommandTests {
    static let faults: [(fault: String, cause: String)] = [
        ("close", "the controller closed the link"),
        ("truncate", "the stream ended inside an ACL packet begun at byte "),
        ("junk", ": 0x09 is no H4 packet type"),
        ("drop", "the H4 stream lost its framing at byte "),
        ("oversize", "an ACL packet announces 65535 bytes, more than the transport accepts"),
        // The CLI probes the controller every 5 s; the probe's 2 s timeout names the silence.
        ("silence", "the controller stopped answering: no answer to Read BD_ADDR within 2 s"),
    ]

    /// By name: the command connects at the first advertisement instead of scanning the whole
    /// window for the strongest.
    static let commands: [(arguments: [String], device: String)] = [
        (["grip", "events", "--name", "Grip-S1"], "grip"),
        (["stylus", "stream", "--name", "Pen-S1"], "stylus"),
    ]

    static let cases = faults.flatMap { fault in commands.map { (fault.fault, fault.cause, $0.arguments, $0.device) } }

    /// A grip that presses 200 times, 20 ms apart, and a stylus that sends 400 batches: the
    /// fault at the 40th ACL packet lands mid-stream for both.
    static func scenario() throws -> String {
        let presses = (0..<200).map { index in ["after": index == 0 ? 0.5 : 0.02, "code": index % 3 + 1] }
        let world: [String: Any] = [
            "seed": 1,
            "devices": [
                ["kind": "grip", "name": "Grip-S1", "rssi": -60, "advertisingIntervalMilliseconds": 100, "gripEvents": presses],
                ["kind": "stylus", "name": "Pen-S1", "rssi": -52, "advertisingIntervalMilliseconds": 100, "count": 400],
            ],
        ]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-faults-\(UUID().uuidString).json").path
        try JSONSerialization.data(withJSONObject: world).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: cases)
    func aBrokenStreamFailsTheCommandWithTheCause(fault: String, cause: String, command: [String], device: String) async throws {
        let scenario = try Self.scenario()
        defer { try? FileManager.default.removeItem(atPath: scenario) }
        let server = try await SimServer(duration: 300, scenario: scenario)
        defer { withExtendedLifetime(server) {} }
        let proxy = try await FaultProxy(upstream: server.endpoint, fault: fault, at: 40)
        let result = try await StrobeCommand.run(
            ["--transport", proxy.endpoint] + command + ["--scan-ms", "15000", "--duration", "40"])
        let applied = try await proxy.applied()
        #expect(applied?["fault"] as? String == fault, "the proxy never applied \(fault); stdout: \(result.stdout)")
        #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("the link to the \(device) was lost"), "\(result.stderr)")
        #expect(result.stderr.contains(cause), "\(result.stderr)")
        // Mid-stream: what arrived before the fault was printed.
        #expect(!result.stdout.isEmpty)
        if fault == "junk", let offset = applied?["offset"] as? Int {
            // The offset the host names is the proxy's count of bytes sent to it.
            #expect(result.stderr.contains("framing at byte \(offset):"), "\(result.stderr)")
        }
    }

    /// `shoot` stops at the first shot after a flash's link broke and fails with the cause; the
    /// summary counts the shots that were taken.
    @Test(arguments: ["close", "junk"])
    func shootStopsWhenAFlashLinkBreaks(fault: String) async throws {
        let server = try await SimServer(duration: 300)
        defer { withExtendedLifetime(server) {} }
        let proxy = try await FaultProxy(upstream: server.endpoint, fault: fault, at: 60)
        let result = try await StrobeCommand.run(
            ["--transport", proxy.endpoint, "shoot", "--count", "1000", "--interval-ms", "20", "--scan-ms", "3000"])
        #expect(try await proxy.applied()?["fault"] as? String == fault)
        #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("the link to the flash C4:5E:00:00:00:0"), "\(result.stderr)")
        let summary = try #require(result.stdout.split(separator: "\n").first { $0.contains(" shots: ") })
        let shots = try #require(Int(summary.prefix { $0.isNumber }))
        #expect(shots > 0 && shots < 1000, "\(summary)")
    }
}
