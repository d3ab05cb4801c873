import Foundation

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
        try await offPool { try run(path, fields, filter: filter) }
    }

    private static func run(_ path: String, _ fields: [String], filter: String?) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["tshark", "-n", "-r", path, "-T", "fields", "-E", "separator=/t"]
            + fields.flatMap { ["-e", $0] } + (filter.map { ["-Y", $0] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failed(description: "tshark on \(path) exited \(process.terminationStatus) (Scripts/install-test-deps.sh installs it)")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
