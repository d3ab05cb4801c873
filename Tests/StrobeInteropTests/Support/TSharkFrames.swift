import Foundation
import StrobeTestSupport

/// Frame counts from Wireshark's command-line decoder, an independent reader of btsnoop files.
enum TSharkFrames {
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// How many frames of `path` match `filter` (all frames without one).
    static func count(_ path: String, filter: String? = nil) async throws -> Int {
        try await fields(path, ["frame.number"], filter: filter).count
    }

    /// One tab-separated line per matching frame with the fields asked for.
    static func fields(_ path: String, _ fields: [String], filter: String? = nil) async throws -> [String] {
        let arguments = ["tshark", "-n", "-r", path, "-T", "fields", "-E", "separator=/t"]
            + fields.flatMap { ["-e", $0] } + (filter.map { ["-Y", $0] } ?? [])
        let run = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), arguments)
        guard run.status == 0 else {
            throw Failed(description: "tshark on \(path) exited \(run.status) (Scripts/install-test-deps.sh installs it): \(run.stderr)")
        }
        return run.stdout.split(separator: "\n").map(String.init)
    }
}
