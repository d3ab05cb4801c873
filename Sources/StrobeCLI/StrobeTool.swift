import ArgumentParser
import Foundation
import Strobe
import StrobeSim

/// Runs the process's command line as the `strobe` tool and exits with its status.
/// `lifxHTTPBackend` makes the LIFX HTTP API's backend from a token and base URL; without it
/// (`strobe-lite`) `--backend http` is refused with the reason.
public func runStrobeTool(lifxHTTPBackend: LIFXHTTPBackendFactory? = nil) async -> Never {
    LightOptions.lifxHTTPBackendFactory.withLock { $0 = lifxHTTPBackend }
    Foundation.exit(await StrobeTool.status(running: nil))
}

package struct StrobeTool: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "strobe",
        abstract: "A Bluetooth Low Energy host stack for latency-sensitive devices.",
        subcommands: [InfoCommand.self, ScanCommand.self, AdvertiseCommand.self, ConnectCommand.self, L2CAPCommand.self, PairCommand.self, BondsCommand.self, GATTCommand.self, CaptureCommand.self, FlashCommand.self, GripCommand.self, RemoteCommand.self, StylusCommand.self, ShootCommand.self, LightCommand.self, SimCommand.self])

    @OptionGroup var global: GlobalOptions

    package init() {}

    /// Runs a command line (`arguments`, else the process's) and returns its exit status: 0
    /// success (help and version included), 1 a one-line error, 2 bad usage.
    package static func status(running arguments: [String]?) async -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                return 0
            } else if code == .validationFailure || error is ValidationError {
                printError(fullMessage(for: error) + "\n")
                return 2
            } else if error is ExitCode {
                return code.rawValue
            } else {
                printError("strobe: error: \(String(describing: error))\n")
                return 1
            }
        }
    }
}
