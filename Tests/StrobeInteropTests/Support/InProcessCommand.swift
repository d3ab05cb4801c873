import Foundation
import StrobeSim

import StrobeCLI

/// `strobe ARGUMENTS` run in this process (an exit test's child) in virtual time on the simulated
/// world: the command's code as the tool runs it, with the world's minutes passing in
/// milliseconds. The process boundary itself is tested once per command family elsewhere.
enum InProcessCommand {
    /// Runs the command; what it prints goes to this process's standard output and error. Returns
    /// the exit status the tool would have (0, 1 for an error, 2 for bad usage). `opened` hears
    /// of the world the command opens, with its clock, to act on it while the command runs.
    static func run(_ arguments: [String], opened: @escaping @Sendable (SimWorld, any Clock<Duration>) -> Void = { _, _ in })
        async throws -> Int32 {
        try await VirtualTimeDriver.run { clock in
            let environment = SimTransport.Environment(clock: clock) { world in opened(world, clock) }
            return await SimTransport.$environment.withValue(environment) { await StrobeTool.status(running: arguments) }
        }
    }
}
