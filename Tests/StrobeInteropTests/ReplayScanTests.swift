import Foundation
import Testing

/// `strobe --transport replay:CAPTURE scan` on every capture in `Captures/`: the replay answers
/// the host's init and scan commands as the capture's controller and then plays its advertising
/// reports, so the scan lists exactly the advertisers tshark finds in the capture's reports.
@Suite(.timeLimit(.minutes(5))) struct ReplayScanTests {
    static let captures: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: RepositoryPaths.captures.path)) ?? []
        return names.filter { $0.hasSuffix(".btsnoop") }.sorted()
    }()

    @Test func everyCaptureIsCovered() {
        #expect(Self.captures.count >= 14, "Captures/: \(Self.captures)")
    }

    @Test(arguments: captures)
    func scanListsTheAdvertisersTSharkSees(_ name: String) async throws {
        let path = RepositoryPaths.captures.appendingPathComponent(name).path
        // LE Advertising Report and LE Extended Advertising Report: the advertiser of each report.
        let expected = Set(try await TSharkFrames.fields(
            path, ["bthci_evt.bd_addr"], filter: "bthci_evt.le_meta_subevent == 0x02 || bthci_evt.le_meta_subevent == 0x0d")
            .flatMap { $0.split(separator: ",") }
            .map { $0.uppercased() })

        // At speed=max the whole capture plays in well under a second on an idle machine; the
        // scan lasts long enough for a machine busy with the rest of the suite.
        let result = try await StrobeCommand.run(
            ["--transport", "replay:\(path),speed=max", "scan", "--duration", "8", "--json"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let found = Set(try JSONLines.objects(result.stdout).compactMap { $0["address"] as? String })
        #expect(found == expected, "only strobe: \(found.subtracting(expected)); only tshark: \(expected.subtracting(found))")
    }
}
