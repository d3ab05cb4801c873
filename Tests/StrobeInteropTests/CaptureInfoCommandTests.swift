import Foundation
import Testing

/// `strobe capture info --json` on every capture in Captures/, against tshark's reading of it.
@Suite(.timeLimit(.minutes(5))) struct CaptureInfoCommandTests {
    static let captures: [String] = (try? FileManager.default.contentsOfDirectory(atPath: RepositoryPaths.captures.path))?
        .filter { !$0.hasSuffix(".md") && $0 != "SHA256SUMS" }.sorted() ?? []

    @Test func everyCaptureIsListed() {
        // An empty list would make the parametrised test pass vacuously.
        #expect(Self.captures.count >= 11)
    }

    @Test(arguments: captures)
    func recordCountMatchesTShark(_ name: String) async throws {
        let path = RepositoryPaths.captures.appendingPathComponent(name).path
        let result = try await StrobeCommand.run(["capture", "info", "--json", path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let summary = try #require(try JSONLines.objects(result.stdout).first)
        for key in ["datalink", "records", "firstTimestamp", "lastTimestamp", "packetTypes"] {
            #expect(summary.keys.contains(key), "\(name): key \(key)")
        }
        #expect(summary["records"] as? Int == (try await TSharkFrames.count(path)), "\(name)")
    }
}

/// `strobe capture decode --tsv` on every capture: frame, connection handle and opcode of every
/// ATT PDU as tshark prints them (handles and values are checked in StrobeCaptureTests).
@Suite(.timeLimit(.minutes(5))) struct CaptureDecodeCommandTests {
    @Test(arguments: CaptureInfoCommandTests.captures)
    func attPDUsMatchTShark(_ name: String) async throws {
        let path = RepositoryPaths.captures.appendingPathComponent(name).path
        let result = try await StrobeCommand.run(["capture", "decode", "--tsv", path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let ours = result.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).prefix(3).joined(separator: "\t") }
        let theirs = try await TSharkFrames.fields(path, ["frame.number", "bthci_acl.chandle", "btatt.opcode"], filter: "btatt")
        #expect(ours == theirs, "\(name)")
    }
}
