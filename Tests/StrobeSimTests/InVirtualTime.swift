import StrobeHCI
import StrobeSim

/// Runs a test's body in virtual time (inside an exit test's child process, which the driver's
/// executor hook needs): the simulated world's minutes pass in milliseconds, the same every run.
func inVirtualTime(limit: Duration = .seconds(600), _ body: @escaping @Sendable (VirtualClock) async throws -> Void) async throws {
    let clock = VirtualClock()
    try await VirtualTimeDriver.run(clock: clock, timeLimit: limit) { try await body(clock) }
}
