import Foundation
import Testing

/// `strobe connect` against Bumble's peripheral (which asks for new connection parameters once
/// connected) and the simulated world.
@Suite(.timeLimit(.minutes(5))) struct ConnectCommandTests {
    @Test func printsTheConnectionAndWithHoldTheParameterUpdateThePeerAskedFor() async throws {
        // 30-50 ms interval, latency 0, 4 s supervision timeout.
        let peripheral = try await BumblePeripheral(arguments: ["--conn-update", "30,50,0,4000"])
        let result = try await StrobeCommand.run(
            ["--transport", peripheral.transport, "connect", "--name", peripheral.name, "--mtu", "185", "--hold", "3", "--json"])
        _ = try await peripheral.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try JSONLines.objects(result.stdout)
        let report = try #require(lines.first)
        #expect(report["address"] as? String == "F0:F1:F2:F3:F4:F5")
        #expect(report["addressType"] as? String == "random")
        #expect(report["role"] as? String == "central")
        #expect(report["mtu"] as? Int == 185)
        #expect(report["supervisionTimeoutMilliseconds"] as? Int == 4000)
        #expect((report["phy"] as? [String: Any])?["tx"] as? String == "LE 1M")
        let update = try #require(lines.dropFirst().first { $0["event"] as? String == "parameters" })
        let detail = try #require(update["detail"] as? String)
        #expect(detail.hasPrefix("Success (0x00), interval "), "\(detail)")
        let interval = try #require(Double(detail.split(separator: " ")[3]))
        #expect((30...50).contains(interval), "\(detail)")
    }

    @Test func aDeviceThatIsNotThereIsOneLineWithinTheTimeout() async throws {
        let result = try await StrobeCommand.run(["connect", "--address", "C4:5E:00:00:00:7F", "--random", "--timeout", "1"])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("C4:5E:00:00:00:7F"), "\(result.stderr)")
    }

    @Test func connectsToTheSimulatedNovaByName() async throws {
        let result = try await StrobeCommand.run(["connect", "--name", "Nova2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("connected to C4:5E:00:00:00:02 (random), handle 0x"), "\(result.stdout)")
        #expect(result.stdout.contains("ATT MTU 247"))
    }

    /// A link that ends during --hold fails the command with the reason, after printing the event:
    /// in virtual time, the world's devices switched off 30 s into a 120 s hold.
    @Test func aLinkLostDuringHoldFailsWithItsReason() async throws {
        let ran = try await InProcessCommand.run(["connect", "--name", "Nova2", "--hold", "120"],
                                                 opened: LinkLossCommandTests.switchOffAfter30Seconds)
        #expect(ran.status == 1)
        let (stdout, stderr) = (ran.stdout, ran.stderr)
        #expect(stdout.contains("disconnected: Remote User Terminated Connection (0x13)"), "\(stdout)")
        #expect(stderr.contains("the link to the device was lost: Remote User Terminated Connection (0x13)"), "\(stderr)")
    }
}
