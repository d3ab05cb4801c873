import ArgumentParser
import Foundation
import Strobe

/// `strobe scan`: scan for LE advertisers and list each device once, with its latest RSSI and
/// the advertising data and scan response folded together.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan", abstract: "Scan for LE advertisers and list each device once.")

    @OptionGroup var global: GlobalOptions

    @Option(help: "How long to scan, in seconds.")
    var duration: Double = 5

    @Flag(help: "Passive scan: no scan requests, so no scan responses.")
    var passive = false

    @Option(help: ArgumentHelp("legacy, extended or automatic (extended when the controller has it).", valueName: "mode"))
    var mode: ScanMode = .automatic

    @Flag(help: "Print one JSON object per device.")
    var json = false

    func validate() throws {
        guard duration > 0, duration <= 3600 else { throw ValidationError("--duration must be between 0 and 3600 seconds") }
    }

    func run() async throws {
        let session = try await ControllerSession.open(global)
        let scanner = session.host.scanner()
        let devices: [DiscoveredDevice]
        do {
            devices = try await scanner.scan(
                for: .milliseconds(Int64(duration * 1000)),
                configuration: .init(active: !passive, mode: mode.scannerMode))
        } catch {
            try? session.close()
            throw error
        }
        try session.close()
        // Strongest first: that is usually the device the user is holding.
        let sorted = devices.sorted { ($0.rssi ?? -128, $1.address.description) > ($1.rssi ?? -128, $0.address.description) }
        if json {
            for device in sorted { try JSONOutput.print(device) }
        } else if sorted.isEmpty {
            print("no devices found in \(duration) s")
        } else {
            for device in sorted { print(Self.line(for: device)) }
        }
    }

    static func line(for device: DiscoveredDevice) -> String {
        var fields = [device.address.description, device.addressType.description.padding(toLength: 6, withPad: " ", startingAt: 0)]
        fields.append(device.rssi.map { "\($0) dBm" } ?? "   ? dBm")
        fields.append(device.name.map { "\"\($0)\"" } ?? "(no name)")
        if !device.serviceUUIDs.isEmpty {
            fields.append("services " + device.serviceUUIDs.map(\.description).joined(separator: ","))
        }
        return fields.joined(separator: "  ")
    }
}

enum ScanMode: String, ExpressibleByArgument, CaseIterable {
    case automatic, legacy, extended

    var scannerMode: LEScanner.Mode {
        switch self {
        case .automatic: .automatic
        case .legacy: .legacy
        case .extended: .extended
        }
    }
}
