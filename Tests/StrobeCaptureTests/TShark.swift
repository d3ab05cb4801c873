import Foundation
import StrobeHCI
import Testing

/// Wireshark's command-line decoder, an independent reader of btsnoop files.
enum TShark {
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "tshark is not installed, and these tests compare against it: install it (Debian/Ubuntu: `apt-get install tshark`)"
        }
    }

    struct Failed: Error, CustomStringConvertible {
        var status: Int32
        var arguments: [String]
        var description: String { "tshark \(arguments.joined(separator: " ")) exited with status \(status)" }
    }

    static func executable() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("tshark")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw Missing()
    }

    /// Runs tshark and returns its standard output. The wait happens on a thread of its own, not
    /// on one of the cooperative pool's few threads, which other tests need meanwhile.
    static func run(_ arguments: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try runBlocking(arguments) })
            }
        }
    }

    private static func runBlocking(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failed(status: process.terminationStatus, arguments: arguments) }
        return String(decoding: data, as: UTF8.self)
    }

    /// One row per frame of `fields`, tab-separated.
    static func fields(_ path: String, _ fields: [String], filter: String? = nil) async throws -> [[String]] {
        var arguments = ["-n", "-r", path, "-T", "fields", "-E", "separator=/t"]
        if let filter { arguments += ["-Y", filter] }
        for field in fields { arguments += ["-e", field] }
        return try await run(arguments).split(separator: "\n", omittingEmptySubsequences: true).map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// `frame.time_epoch` ("1539547039.735026000") in Unix microseconds.
    static func microseconds(_ epoch: String) -> Int64? {
        let parts = epoch.split(separator: ".", omittingEmptySubsequences: false)
        guard let seconds = Int64(parts[0]) else { return nil }
        let fraction = parts.count > 1 ? String(parts[1].prefix(6)) : ""
        let padded = fraction + String(repeating: "0", count: 6 - fraction.count)
        guard let micros = Int64(padded) else { return nil }
        return seconds * 1_000_000 + (seconds < 0 ? -micros : micros)
    }

    /// The Wireshark protocol that decodes an HCI packet of `type` (as in `frame.protocols`).
    static func layer(for type: HCIPacketType) -> String {
        switch type {
        case .command: "bthci_cmd"
        case .event: "bthci_evt"
        case .acl: "bthci_acl"
        case .sco: "bthci_sco"
        case .iso: "bthci_iso"
        }
    }

    static func protocols(_ frameProtocols: String) -> [String] {
        frameProtocols.split(separator: ":").map(String.init)
    }

    /// "0x04" -> 4.
    static func hex(_ text: String) -> UInt32? {
        text.hasPrefix("0x") ? UInt32(text.dropFirst(2), radix: 16) : UInt32(text)
    }
}
