import Foundation
import Testing

/// `--verbose` shows what the stack logs on stderr; without it the stack says nothing there.
@Suite(.timeLimit(.minutes(5))) struct VerboseOptionTests {
    @Test func verboseLogsTheControllerAndTheLinksOnStderr() async throws {
        let quiet = try await StrobeCommand.run(["grip", "events", "--count", "1"])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")

        let verbose = try await StrobeCommand.run(["--verbose", "grip", "events", "--count", "1"])
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(verbose.stdout == quiet.stdout)
        let lines = verbose.stderr.split(separator: "\n")
        #expect(lines.contains { $0.contains("info strobe:") && $0.contains("controller open") && $0.contains("transport=sim") })
        #expect(lines.contains { $0.contains("LE connection complete") && $0.contains("peer=C4:5E:00:00:00:03") })
        #expect(lines.contains { $0.contains("connection closed") && $0.contains("Connection Terminated By Local Host (0x16)") })
    }
}
