import ArgumentParser
import Foundation
import Strobe
import StrobeSim

@main
struct StrobeTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strobe",
        abstract: "A Bluetooth Low Energy host stack for latency-sensitive devices.",
        subcommands: [InfoCommand.self, ScanCommand.self, AdvertiseCommand.self, ConnectCommand.self, PairCommand.self, BondsCommand.self, GATTCommand.self, CaptureCommand.self, FlashCommand.self, GripCommand.self, RemoteCommand.self, StylusCommand.self, ShootCommand.self, LightCommand.self, SimCommand.self])

    @OptionGroup var global: GlobalOptions

    /// Exit status: 0 success, 1 a one-line error, 2 bad usage.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)
            } else if code == .validationFailure || error is ValidationError {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            } else if error is ExitCode {
                Foundation.exit(code.rawValue)
            } else {
                FileHandle.standardError.write(Data("strobe: error: \(String(describing: error))\n".utf8))
                Foundation.exit(1)
            }
        }
    }
}
