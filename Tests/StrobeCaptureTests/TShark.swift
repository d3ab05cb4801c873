import Foundation
import StrobeTestSupport
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
        guard let tshark = ChildProcess.onPath("tshark") else { throw Missing() }
        return tshark
    }

    /// Runs tshark and returns its standard output.
    static func run(_ arguments: [String]) async throws -> String {
        let run = try await ChildProcess.run(try executable(), arguments)
        guard run.status == 0 else { throw Failed(status: run.status, arguments: arguments) }
        return run.stdout
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
