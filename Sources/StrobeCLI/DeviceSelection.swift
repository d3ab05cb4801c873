import ArgumentParser
import Strobe

/// Finds one device by exact name, or the strongest whose name starts with a prefix.
struct DeviceSelectionOptions: ParsableArguments {
    @Option(help: "The device's advertised name (default: the strongest whose name starts with the kit's prefix).")
    var name: String?

    @Option(help: "How long to scan for it, in milliseconds.")
    var scanMs: Int = 2000

    func validate() throws {
        guard (100...60_000).contains(scanMs) else { throw ValidationError("--scan-ms must be between 100 and 60000") }
    }

    func connect(_ central: Central, prefix: String) async throws -> LEConnection {
        try await connect(central, describing: prefix + "…") { $0.name?.hasPrefix(prefix) == true }
    }

    /// By name, or the strongest device `matches` accepts.
    func connect(_ central: Central, describing what: String, matches: (DiscoveredDevice) -> Bool) async throws -> LEConnection {
        if let name { return try await central.connect(name: name, scanTimeout: .milliseconds(scanMs)) }
        return try await Self.connectStrongest(central, scanMs: scanMs, describing: what, matches: matches)
    }

    /// Scans for `scanMs` and connects the strongest device `matches` accepts.
    static func connectStrongest(_ central: Central, scanMs: Int, describing what: String,
                                 matches: (DiscoveredDevice) -> Bool) async throws -> LEConnection {
        let found = try await central.scanner().scan(for: .milliseconds(scanMs))
        guard let device = found.filter(matches).max(by: { ($0.rssi ?? -128) < ($1.rssi ?? -128) }) else {
            throw ConnectionError.notFound(name: what, scanned: .milliseconds(scanMs))
        }
        return try await central.connect(to: device.address, addressType: device.addressType)
    }
}
