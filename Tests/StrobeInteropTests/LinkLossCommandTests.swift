import Foundation
import StrobeSim
import Testing

/// Streaming commands whose link goes down before their duration fail with the cause, after
/// printing what they had: the simulated world's devices are switched off after 30 s (of virtual
/// time) while `grip events` and `stylus stream` are still reading for 60.
@Suite(.timeLimit(.minutes(5))) struct LinkLossCommandTests {
    /// The devices go at 30 s, as `strobe sim serve --duration 30` ends its links.
    @Sendable static func switchOffAfter30Seconds(_ world: SimWorld, _ clock: any Clock<Duration>) {
        Task(executorPreference: clock.taskExecutor) {
            try? await clock.sleep(for: .seconds(30))
            for device in world.devices { device.stop() }
        }
    }

    @Test func gripEventsFailsWithTheCause() async throws {
        Self.expectLost(try await InProcessCommand.run(["grip", "events", "--name", "Grip-S1", "--duration", "60"],
                                                       opened: LinkLossCommandTests.switchOffAfter30Seconds), device: "grip")
    }

    @Test func stylusStreamFailsWithTheCause() async throws {
        Self.expectLost(try await InProcessCommand.run(["stylus", "stream", "--name", "Pen-S1", "--duration", "60"],
                                                       opened: LinkLossCommandTests.switchOffAfter30Seconds), device: "stylus")
    }

    static func expectLost(_ ran: InProcessCommand.Ran, device: String) {
        let (stdout, stderr) = (ran.stdout, ran.stderr)
        #expect(ran.status == 1)
        #expect(stderr.contains("the link to the \(device) was lost: Remote User Terminated Connection (0x13)"), "\(stderr)")
        // What arrived before is still printed, with its summary.
        #expect(!stdout.isEmpty)
    }
}
