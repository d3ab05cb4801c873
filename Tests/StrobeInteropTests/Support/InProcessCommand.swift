import Foundation
import StrobeSim
import Synchronization

import StrobeCLI

/// `strobe ARGUMENTS` run in this process in virtual time on the simulated world: the command's
/// code as the tool runs it, with the world's minutes passing in milliseconds, its output caught
/// (`ToolOutput`). The process boundary itself is tested once per command family elsewhere.
enum InProcessCommand {
    /// What a command left: the exit status the tool would have (0, 1 for an error, 2 for bad
    /// usage), and what it wrote to standard output and error.
    struct Ran: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the command. `opened` hears of the world the command opens, with its clock, to act
    /// on it while the command runs.
    static func run(_ arguments: [String], opened: @escaping @Sendable (SimWorld, any Clock<Duration>) -> Void = { _, _ in })
        async throws -> Ran {
        let written = Mutex((stdout: "", stderr: ""))
        let output = ToolOutput(output: { text in written.withLock { $0.stdout += text } },
                                error: { text in written.withLock { $0.stderr += text } })
        let status = try await VirtualTimeDriver.run { clock in
            let environment = SimTransport.Environment(clock: clock) { world in opened(world, clock) }
            return await SimTransport.$environment.withValue(environment) {
                await ToolOutput.$current.withValue(output) { await StrobeTool.status(running: arguments) }
            }
        }
        let (stdout, stderr) = written.withLock { $0 }
        return Ran(status: status, stdout: stdout, stderr: stderr)
    }
}
