import ArgumentParser
import Foundation
import Strobe

/// `strobe flash`: Nova off-camera flashes.
struct FlashCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flash", abstract: "Find and drive Nova flashes (V1 and V2).",
        subcommands: [FlashStatusCommand.self, FlashPingCommand.self, FlashFireCommand.self, FlashDefaultsCommand.self])

    // Declared here too, so that the selection may come before the subcommand as well as after.
    @OptionGroup var global: GlobalOptions
    @OptionGroup var flashes: FlashSelectionOptions
}

/// Which flashes a `flash` command talks to.
struct FlashSelectionOptions: ParsableArguments {
    @Option(help: "The flash advertising this name.")
    var name: String?

    @Option(help: "The flash with this address.")
    var address: String?

    @Flag(help: "Every Nova in range.")
    var all = false

    @Option(help: "How long to scan for flashes, in milliseconds.")
    var scanMs: Int = 1000

    func validate() throws {
        guard [name != nil, address != nil, all].filter({ $0 }).count <= 1 else {
            throw ValidationError("give at most one of --name, --address and --all")
        }
        if let address, BluetoothAddress(address) == nil { throw ValidationError("'\(address)' is not an address like 12:34:56:78:9A:BC") }
        guard (100...60_000).contains(scanMs) else { throw ValidationError("--scan-ms must be between 100 and 60000") }
    }

    var selection: NovaFlashManager.Selection {
        if let name { return .named(name) }
        if let address, let parsed = BluetoothAddress(address) { return .address(parsed) }
        return all ? .all : .closest
    }

    /// Opens the controller and connects the selected flashes; fails when none answers.
    func connect(_ global: GlobalOptions) async throws -> (ControllerSession, NovaFlashManager) {
        let session = try await ControllerSession.open(global)
        let manager = NovaFlashManager(host: session.host,
                                       configuration: .init(scanBurst: .milliseconds(scanMs)))
        do {
            let connected = try await manager.connect(selection)
            guard !connected.isEmpty else { throw FlashCommandError.noFlash(scannedMs: scanMs) }
            return (session, manager)
        } catch {
            try? session.close()
            throw error
        }
    }
}

enum FlashCommandError: Error, CustomStringConvertible {
    case noFlash(scannedMs: Int)
    case someFailed(Int)

    var description: String {
        switch self {
        case .noFlash(let ms): "no Nova flash found in \(ms) ms of scanning (is it on and advertising?)"
        case .someFailed(let count): "\(count) flash command(s) failed"
        }
    }
}

/// Prints one line per flash; returns how many failed.
func report(_ results: [NovaFlashManager.FlashResult], _ what: String) -> Int {
    var failures = 0
    for result in results {
        switch result.result {
        case .success(let ack): print("\(result.address)  \(what) acknowledged in \(milliseconds(ack.roundTrip)) ms")
        case .failure(let error):
            failures += 1
            print("\(result.address)  \(what) failed: \(error)")
        }
    }
    return failures
}

func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return String(format: "%.2f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
}

struct FlashStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Connect and show each flash: model, signal, battery.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var flashes: FlashSelectionOptions

    func run() async throws {
        let (session, manager) = try await flashes.connect(global)
        try await session.closing {
            var unreadable: [String] = []
            for flash in manager.flashes {
                var line = "\(flash.address)  \"\(flash.name)\"  \(flash.flash.model)"
                if let rssi = flash.rssi {
                    line += String(format: "  signal %.0f%% (%d dBm)", NovaSignalStrength.fraction(rssi: Int8(clamping: rssi)) * 100, rssi)
                }
                if flash.flash.model == .v2 {
                    do {
                        line += "  battery \(try await flash.flash.batteryLevel())"
                    } catch {
                        line += "  battery unreadable"
                        unreadable.append("\(flash.address): \(error)")
                    }
                }
                print(line + "  \(manager.status)")
            }
            // A failed read is an error, not a line that looks complete.
            if !unreadable.isEmpty { throw BatteryUnreadable(flashes: unreadable) }
        }
    }

    struct BatteryUnreadable: Error, CustomStringConvertible {
        var flashes: [String]
        var description: String { "the battery level could not be read: \(flashes.joined(separator: "; "))" }
    }
}

struct FlashPingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ping", abstract: "Ping each flash and print the round trip.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var flashes: FlashSelectionOptions

    func run() async throws {
        let (session, manager) = try await flashes.connect(global)
        try await session.closing {
            let failures = report(await manager.ping(), "ping")
            if failures > 0 { throw FlashCommandError.someFailed(failures) }
        }
    }
}

enum FlashPreset: String, ExpressibleByArgument, CaseIterable {
    case off, gentle, warm, full
    var settings: NovaFlashSettings {
        switch self {
        case .off: .off
        case .gentle: .gentle
        case .warm: .warm
        case .full: .full
        }
    }
}

struct FlashFireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fire", abstract: "Light the flash(es), hold, turn off; print each flash's ack time.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var flashes: FlashSelectionOptions

    @Option(help: "off, gentle, warm or full (default full unless --warm/--cool are given).")
    var preset: FlashPreset?
    @Option(help: "Warm LED power, 0-255.") var warm: UInt8?
    @Option(help: "Cool LED power, 0-255.") var cool: UInt8?
    @Option(help: "Safety timeout in the flash, in milliseconds: the light goes off by itself after it.")
    var timeoutMs: UInt16 = NovaFlashSettings.defaultTimeoutMilliseconds
    @Option(help: "How long to hold the light before turning it off, in milliseconds.")
    var holdMs: Int = 100

    func validate() throws {
        if preset != nil, warm != nil || cool != nil { throw ValidationError("give --preset or --warm/--cool, not both") }
        guard (0...60_000).contains(holdMs) else { throw ValidationError("--hold-ms must be between 0 and 60000") }
    }

    func run() async throws {
        let settings: NovaFlashSettings
        if warm != nil || cool != nil {
            settings = NovaFlashSettings(warm: warm ?? 0, cool: cool ?? 0, timeoutMilliseconds: timeoutMs)
        } else {
            settings = (preset ?? .full).settings.withTimeout(.milliseconds(Int(timeoutMs)))
        }
        let (session, manager) = try await flashes.connect(global)
        try await session.closing {
            var failures = report(await manager.beginFlash(settings), "flash (\(settings))")
            try await session.clock.sleep(for: .milliseconds(holdMs))
            failures += report(await manager.endFlash(), "off")
            if failures > 0 { throw FlashCommandError.someFailed(failures) }
        }
    }
}

struct FlashDefaultsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "defaults", abstract: "Show a V2 flash's stored defaults and counters.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var flashes: FlashSelectionOptions

    func run() async throws {
        let (session, manager) = try await flashes.connect(global)
        try await session.closing {
            for flash in manager.flashes {
                guard flash.flash.model == .v2 else {
                    print("\(flash.address)  V1: no stored defaults")
                    continue
                }
                let defaults = try await flash.flash.readDefaults()
                let counters = try await flash.flash.readCounters()
                print("\(flash.address)  regular: \(defaults.regular)  preflash: \(defaults.preflash)  counters: \(counters.values.map(String.init).joined(separator: ","))")
            }
        }
    }
}
