import Foundation
import Testing

/// Streaming commands whose link goes down before their duration fail with the cause, after
/// printing what they had: `strobe sim serve --duration` ends the simulated devices' links while
/// `grip events` and `stylus stream` are still reading.
@Suite(.timeLimit(.minutes(2))) struct LinkLossCommandTests {
    @Test(arguments: [(["grip", "events", "--name", "Grip-S1"], "grip"), (["stylus", "stream", "--name", "Pen-S1"], "stylus")])
    func aLinkLostMidStreamFailsTheCommandWithItsCause(command: [String], device: String) async throws {
        let server = try await SimServer(duration: 30)
        // Serving until the test ends (its deinit stops it).
        defer { withExtendedLifetime(server) {} }
        let endpoint = server.endpoint

        // Asked to read for 60 s; the server ends the link after 30 (margins for a loaded machine:
        // the simulated world runs in real time).
        let result = try await StrobeCommand.run(["--transport", endpoint] + command + ["--scan-ms", "15000", "--duration", "60"])
        #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("the link to the \(device) was lost: Remote User Terminated Connection (0x13)"), "\(result.stderr)")
        // What arrived before is still printed, with its summary.
        #expect(!result.stdout.isEmpty)
    }
}
