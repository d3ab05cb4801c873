import Foundation
import StrobeSim
import Testing

/// Bumble's own host drives a controller of Strobe's simulated world over H4/TCP
/// (`strobe sim serve`): it scans, connects, discovers and reads a simulated device's
/// characteristics and receives its notifications.
@Suite(.timeLimit(.minutes(5))) struct SimServeInteropTests {
    @Test func bumbleHostScansConnectsReadsAndIsNotified() async throws {
        let server = try await SimServer(duration: 300)
        // Serving until the test ends (its deinit stops it).
        defer { withExtendedLifetime(server) {} }
        let endpoint = server.endpoint

        let client = try await StrobeCommand.run(executable: RepositoryPaths.bumblePython, [
            RepositoryPaths.bumbleFixtures.appendingPathComponent("sim_client.py").path, endpoint,
            "--name", "Strobe-Test", "--read-uuid", "8D1E0002-3B5A-4C6E-9F00-5A7B0BE0C0DE",
            "--notify-uuid", "8D1E0004-3B5A-4C6E-9F00-5A7B0BE0C0DE", "--notify-count", "10",
        ])
        let line = try #require(client.stdout.split(separator: "\n").first { $0.hasPrefix("SUMMARY ") }, "stderr: \(client.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(8).utf8)) as? [String: Any])
        #expect(summary["exit_reason"] as? String == "done")
        #expect(summary["address"] as? String == "C4:5E:00:00:00:05")
        #expect(summary["rssi"] as? Int == -70)
        #expect(summary["mtu"] as? Int == 247)
        #expect((summary["services"] as? [String])?.contains("8D1E0001-3B5A-4C6E-9F00-5A7B0BE0C0DE") == true)
        #expect(summary["read"] as? String == (0..<300).map { String(format: "%02x", $0 % 256) }.joined())
        // The test device counts up, a little-endian u32 per notification.
        let expected = (0..<10).map { i in withUnsafeBytes(of: UInt32(i).littleEndian) { $0.map { String(format: "%02x", $0) }.joined() } }
        #expect(summary["notifications"] as? [String] == expected)
    }

    /// Every simulated device serves the GAP service: Bumble reads its name and appearance, as a
    /// phone does on connecting.
    @Test(.timeLimit(.minutes(5))) func bumbleReadsEveryDevicesNameAndAppearance() async throws {
        let server = try await SimServer(duration: 300)
        defer { withExtendedLifetime(server) {} }
        let devices = SimScenario.standard.devices
        let client = try await StrobeCommand.run(executable: RepositoryPaths.bumblePython, [
            RepositoryPaths.bumbleFixtures.appendingPathComponent("sim_client.py").path, server.endpoint, "--timeout", "80",
        ] + devices.flatMap { ["--gap-of", $0.name] })
        let line = try #require(client.stdout.split(separator: "\n").first { $0.hasPrefix("SUMMARY ") }, "stderr: \(client.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(8).utf8)) as? [String: Any])
        #expect(summary["exit_reason"] as? String == "done")
        let gap = try #require(summary["gap"] as? [String: [String: Any]])
        for device in devices {
            #expect(gap[device.name]?["device_name"] as? String == device.name, "\(device.name): \(gap[device.name] ?? [:])")
            #expect(gap[device.name]?["appearance"] as? Int == (device.kind == .remote ? 0x03C0 : 0), "\(device.name)")
        }
    }
}
