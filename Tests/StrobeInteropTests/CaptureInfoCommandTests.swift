import Foundation
import Testing

/// `strobe capture info --json` on every capture in Captures/, against tshark's reading of it.
@Suite(.timeLimit(.minutes(2))) struct CaptureInfoCommandTests {
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
        #expect(summary["records"] as? Int == (try TSharkFrames.count(path)), "\(name)")
    }
}
