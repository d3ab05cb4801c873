import Foundation
import Testing

/// `strobe info` and `strobe scan` against a Bumble virtual controller over H4/TCP: the init
/// sequence runs and the Bumble peripheral's advertisement is found by name.
@Suite(.timeLimit(.minutes(5))) struct ScanCommandTests {
    @Test func infoReportsTheVirtualControllersAddressAndBuffers() async throws {
        let peripheral = try await BumblePeripheral()
        let result = try await StrobeCommand.run(["--transport", peripheral.transport, "info", "--json"])
        _ = try await peripheral.stop()
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let info = try #require(try JSONLines.objects(result.stdout).first)
        // The fixture gives the host under test this public address and 27-byte LE ACL buffers.
        #expect(info["address"] as? String == "00:11:22:33:44:55")
        #expect(info["leACLLength"] as? Int == 27)
        #expect((info["leACLCount"] as? Int ?? 0) > 0)
    }

    @Test(arguments: ["legacy", "extended"])
    func scanFindsTheBumblePeripheralByName(mode: String) async throws {
        let peripheral = try await BumblePeripheral()
        let result = try await StrobeCommand.run(
            ["--transport", peripheral.transport, "scan", "--duration", "1", "--mode", mode, "--json"])
        _ = try await peripheral.stop()
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let devices = try JSONLines.objects(result.stdout)
        let found = devices.filter { $0["name"] as? String == peripheral.name }
        // Duplicates are folded in the host: one entry, however many reports arrived.
        #expect(found.count == 1, "devices: \(result.stdout)")
        let device = try #require(found.first)
        #expect(device["address"] as? String == "F0:F1:F2:F3:F4:F5")
        #expect(device["addressType"] as? String == "random")
        #expect(device["rssi"] as? Int == -50)
        #expect(device["serviceUUIDs"] is [Any])
    }

    @Test func btsnoopOptionRecordsTheSessionAsTSharkReadsIt() async throws {
        let peripheral = try await BumblePeripheral()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-scan-\(UUID().uuidString).btsnoop")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await StrobeCommand.run(
            ["--transport", peripheral.transport, "--btsnoop", file.path, "scan", "--duration", "0.5"])
        _ = try await peripheral.stop()
        #expect(result.status == 0, "stderr: \(result.stderr)")

        // Commands the host sent and the advertising reports it got, as tshark decodes them.
        let resets = try await TSharkFrames.count(file.path, filter: "bthci_cmd.opcode == 0x0c03")
        let reports = try await TSharkFrames.count(file.path, filter: "bthci_evt.le_meta_subevent == 0x02 || bthci_evt.le_meta_subevent == 0x0d")
        #expect(resets == 1)
        #expect(reports > 0)
        let info = try await StrobeCommand.run(["capture", "info", "--json", file.path])
        let summary = try #require(try JSONLines.objects(info.stdout).first)
        #expect(summary["records"] as? Int == (try await TSharkFrames.count(file.path)))
    }
}

/// With no transport at all, `strobe` runs on the simulated world: a newcomer sees devices.
@Suite(.timeLimit(.minutes(5))) struct DefaultTransportTests {
    @Test func scanWithoutATransportListsTheSimulatedDevices() async throws {
        let result = try await StrobeCommand.run(["scan", "--duration", "1", "--json"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let names = Set(try JSONLines.objects(result.stdout).compactMap { $0["name"] as? String })
        #expect(names == ["Nova", "Nova2", "Grip-S1", "Pen-S1", "Strobe-Test", "LEDBLE-Key", "AB Shutter3"])
    }

    @Test func aScenarioFileDescribesTheWorld() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-world-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("""
            {"seed": 42, "devices": [
              {"kind": "nova2", "name": "Studio-Left", "rssi": -40, "advertisingIntervalMilliseconds": 50},
              {"kind": "nova1", "name": "Nova", "rssi": -75, "advertisingIntervalMilliseconds": 50}]}
            """.utf8).write(to: file)
        let listed = try await StrobeCommand.run(["sim", "list", "--scenario", file.path])
        #expect(listed.status == 0, "stderr: \(listed.stderr)")
        #expect(listed.stdout.contains("\"Studio-Left\"") && listed.stdout.contains("seed 42"))
        let scan = try await StrobeCommand.run(["--transport", "sim:\(file.path)", "scan", "--duration", "0.5", "--json"])
        let devices = try JSONLines.objects(scan.stdout)
        #expect(devices.compactMap { $0["name"] as? String } == ["Studio-Left", "Nova"], "strongest first")
        let broken = try await StrobeCommand.run(["--transport", "sim:/nonexistent/world.json", "scan"])
        #expect(broken.status == 1 && broken.stderr.contains("/nonexistent/world.json"))
    }

    /// A controller (the simulated world's, over H4/TCP as a dongle's would be) that grants no
    /// command credits after LE Set Scan Enable cannot be told to stop scanning: the scan fails
    /// with that, and the tool exits 1 with the error, not 0 with the devices.
    @Test func aScanTheControllerCannotBeToldToStopExitsOne() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-world-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("""
            {"seed": 1, "withholdsCommandCreditsAfter": "0x200C", "devices": [
              {"kind": "nova2", "name": "Nova2", "rssi": -40, "advertisingIntervalMilliseconds": 50}]}
            """.utf8).write(to: file)
        let server = try await SimServer(duration: 300, scenario: file.path)
        let scan = try await StrobeCommand.run(["--transport", server.endpoint, "scan", "--duration", "1", "--mode", "legacy"])
        #expect(scan.status == 1, "stdout: \(scan.stdout)")
        // One line: the error, after the command deadline (2 s by default) from the disable's queueing.
        let lines = scan.stderr.split(separator: "\n")
        #expect(lines.count == 1 && scan.stderr.hasPrefix("strobe: error: the controller granted no command credits for ")
                    && scan.stderr.hasSuffix("(Num_HCI_Command_Packets stayed 0): LE Set Scan Enable (0x200C) was never sent\n"),
                "stderr: \(scan.stderr)")
        #expect(!scan.stdout.contains("Nova2"), "no devices printed for a failed scan")
    }
}

@Suite(.timeLimit(.minutes(5))) struct ShootCommandTests {
    /// In virtual time: every one of the hundred is captured.
    @Test func hundredShotsOnTheSimulatedWorldWithASummary() async throws {
        let ran = try await InProcessCommand.run(["shoot", "--count", "100", "--interval-ms", "0", "--exposure-ms", "1", "--json"])
        #expect(ran.status == 0, "\(ran.stderr)")
        let objects = try JSONLines.objects(ran.stdout)
        #expect(objects.count == 101)
        let shots = objects.dropLast()
        #expect(shots.map { $0["shot"] as? Int } == (1...100).map { $0 })
        #expect(shots.allSatisfy { ["captured", "capturedWithoutFlash", "aborted", "noFlash", "cameraFailed", "cancelled", "busy"].contains($0["outcome"] as? String ?? "") })
        let summary = try #require(objects.last?["summary"] as? [String: Any])
        #expect(summary["shots"] as? Int == 100)
        let outcomes = try #require(summary["outcomes"] as? [String: Int])
        #expect(outcomes == ["captured": 100])
        #expect(summary["triggerToLitMicroseconds"] is [String: Any])
    }
}
