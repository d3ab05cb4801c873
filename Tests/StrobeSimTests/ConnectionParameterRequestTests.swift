import StrobeHCI
import StrobeHost
import Testing

import StrobeSim

/// A peripheral asks for new connection parameters through the link layer, as real ones do:
/// the simulated controller runs the Connection Parameters Request procedure (LE Remote
/// Connection Parameter Request at the central's host, which must answer within 40 s), and
/// Strobe's central answers as its policy says. Two Strobe hosts on one simulated air, in
/// virtual time.
@Suite(.timeLimit(.minutes(2))) struct ConnectionParameterRequestTests {
    @Test func aRequestInsideThePolicyHoldsOneOutsideIsRefusedAndTheLinkStaysUp() async throws {
        let clock = VirtualClock()
        try await VirtualTimeDriver.run(clock: clock, timeLimit: .seconds(300)) {
            let hosts = try await TwoHosts.linked(clock: clock, name: "Asker")
            let (link, asker) = (hosts.link, hosts.served)

            // 30 to 50 ms, 2 skipped events, 2 s: inside the default policy, taken as asked.
            let asked = LEConnectionParameters(intervalMin: 24, intervalMax: 40, maxLatency: 2, supervisionTimeout: 200)
            let started = clock.now
            let inUse = try await asker.updateParameters(asked)
            #expect(started.duration(to: clock.now) < .seconds(1))
            #expect(inUse.interval == 40 && inUse.latency == 2 && inUse.supervisionTimeout == 200)
            #expect(link.parameters == inUse)
            #expect(link.remoteParameterRequests == (received: 1, accepted: 1))

            // One-second intervals: outside the policy, refused with 0x3B, nothing changes.
            let slow = LEConnectionParameters(intervalMin: 800, intervalMax: 800, maxLatency: 0, supervisionTimeout: 600)
            await #expect(throws: StrobeError.connection(.updateRefused(address: asker.peerAddress, status: .unacceptableConnectionParameters))) {
                try await asker.updateParameters(slow)
            }
            #expect(link.parameters == inUse && asker.parameters == inUse)
            #expect(link.remoteParameterRequests == (received: 2, accepted: 1))

            // The link layer's 40 s limit passes with the link up.
            try await clock.sleep(for: .seconds(60))
            #expect(link.isConnected && asker.isConnected)
            _ = try await link.disconnect()
            hosts.world.stop()
        }
    }

    /// A request the policy narrows: intervals of 7.5 to 200 ms become 7.5 to 100 ms, latency
    /// 10 becomes 4; the peripheral gets what the central allowed.
    @Test func aRequestIsNarrowedToThePolicy() {
        let decision = ConnectionParameterPolicy.lowLatency.decide(
            LEConnectionParameters(intervalMin: 0x0006, intervalMax: 0x00A0, maxLatency: 10, supervisionTimeout: 500))
        #expect(decision == .accept(LEConnectionParameters(intervalMin: 0x0006, intervalMax: 0x0050, maxLatency: 4, supervisionTimeout: 500)))
        // The same with a timeout too short for its own interval and latency: not a valid request.
        #expect(ConnectionParameterPolicy.lowLatency.decide(
            LEConnectionParameters(intervalMin: 0x0006, intervalMax: 0x00A0, maxLatency: 10, supervisionTimeout: 400))
            == .reject("the request is outside the specification's limits"))
        // Outside the spec's own ranges, or a timeout too short for the interval: refused.
        #expect(ConnectionParameterPolicy.lowLatency.decide(
            LEConnectionParameters(intervalMin: 0x0002, intervalMax: 0x0006, supervisionTimeout: 100)) != .accept(
            LEConnectionParameters(intervalMin: 0x0006, intervalMax: 0x0006, supervisionTimeout: 100)))
        if case .accept = ConnectionParameterPolicy.lowLatency.decide(
            LEConnectionParameters(intervalMin: 0x0050, intervalMax: 0x0050, maxLatency: 4, supervisionTimeout: 0x000A)) {
            Issue.record("a 100 ms timeout with 100 ms intervals and latency 4 was accepted")
        }
    }
}
