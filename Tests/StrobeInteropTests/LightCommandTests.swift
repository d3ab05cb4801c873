import Foundation
import StrobeLights
import Testing

/// `strobe light` as a user runs it, against each backend's peer: lifx-emulator (LAN), the
/// local server of the HTTP API's shapes, a Bumble LEDnet peer and the simulated world (Bluetooth).
@Suite(.serialized) struct LightCommandTests {
    @Test func lanListAndOperationsAgainstTheEmulator() async throws {
        let emulator = try await LIFXEmulator(devices: LIFXLANInteropTests.devices)
        let backend = "lan:127.0.0.1:\(emulator.port)"
        let list = try await StrobeCommand.run(["light", "--backend", backend, "--discover-ms", "400", "list", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let lights = try JSONLines.objects(list.stdout)
        #expect(lights.map { $0["label"] as? String } == ["Key", "Fill", "Hair"])
        #expect(Set(lights.flatMap { $0.keys }) == ["id", "label", "power", "brightness", "hue", "saturation", "kelvin", "group", "location", "connected"])
        #expect(lights.map { $0["group"] as? String } == ["Studio", "Studio", "Back"])

        let set = try await StrobeCommand.run(["light", "--backend", backend, "--discover-ms", "400", "--selector",
                                               "group_id:\(LIFXLANInteropTests.studio.id)", "set", "--color", "red", "--brightness", "0.25",
                                               "--on", "--duration", "0", "--json"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try JSONLines.objects(set.stdout).map { $0["status"] as? String } == ["ok", "ok"])
        for serial in ["d073d5000001", "d073d5000002"] {
            let device = try await emulator.device(serial)
            #expect(device["power_level"] as? Int == 65535)
            #expect((device["color"] as? [String: Int])?["brightness"] == 16384)
            #expect((device["color"] as? [String: Int])?["saturation"] == 65535)
        }
        #expect((try await emulator.device("d073d5000003")["color"] as? [String: Int])?["brightness"] == 16384,
                "Hair kept its own brightness")
        let off = try await StrobeCommand.run(["light", "--backend", backend, "--discover-ms", "400", "--selector", "label:Hair", "off",
                                               "--duration", "0"])
        #expect(off.status == 0 && off.stdout.contains("\"Hair\"  ok"), "\(off.stdout)\(off.stderr)")
        #expect(try await emulator.device("d073d5000003")["power_level"] as? Int == 0)
        await emulator.stop()
    }

    @Test func httpTakesTheTokenFromTheEnvironmentOrAFileAndNeverPrintsIt() async throws {
        let server = try await LIFXHTTPServer(token: LIFXHTTPInteropTests.token)
        let api = ["--backend", "http", "--api-url", server.baseURL.absoluteString]
        var environment = ProcessInfo.processInfo.environment
        environment["LIFX_TOKEN"] = LIFXHTTPInteropTests.token
        let list = try await StrobeCommand.run(["light"] + api + ["list", "--json"], environment: environment)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(try JSONLines.objects(list.stdout).map { $0["connected"] as? Bool } == [true, true, false])

        // Mixed results: exit 1, every light's result printed.
        let on = try await StrobeCommand.run(["light"] + api + ["on", "--json"], environment: environment)
        #expect(on.status == 1)
        #expect(try JSONLines.objects(on.stdout).map { $0["status"] as? String } == ["ok", "ok", "offline"])
        #expect(on.stderr.contains("1 of 3 light(s) did not take it"))

        let scenes = try await StrobeCommand.run(["light"] + api + ["scenes"], environment: environment)
        #expect(scenes.stdout.contains("\"Dark set\""))
        let restore = try await StrobeCommand.run(["light"] + api + ["restore", "Dark set", "--json"], environment: environment)
        #expect(try JSONLines.objects(restore.stdout).count == 3)

        // A wrong token: the typed 401.
        let wrong = try await StrobeCommand.run(["light"] + api + ["list"], environment: ["LIFX_TOKEN": "not-the-token", "PATH": "/usr/bin:/bin"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("refused the token (401)"), "\(wrong.stderr)")
        // The right token from a file, and a server that quotes it in its error: cut out.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-token-\(UUID().uuidString)")
        try "\(LIFXHTTPInteropTests.token)\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        try await server.control("echo-token")
        try await server.control("fail?status=500&count=1")
        let failed = try await StrobeCommand.run(["light"] + api + ["--token-file", file.path, "list"])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("(500)") && failed.stderr.contains("[token]"), "\(failed.stderr)")
        for output in [list, on, scenes, restore, wrong, failed] {
            #expect(!(output.stdout + output.stderr).contains(LIFXHTTPInteropTests.token))
        }
        let missing = try await StrobeCommand.run(["light", "--backend", "http", "list"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(missing.status == 2 && missing.stderr.contains("LIFX_TOKEN"))
        await server.stop()
    }

    /// `strobe-lite` is the same tool without the HTTP backend: it refuses `--backend http` with
    /// the reason, and no HTTP client is linked into it (its module's symbols are absent).
    @Test func strobeLiteHasNoHTTPBackendAndSaysSo() async throws {
        let lite = RepositoryPaths.builtExecutable("strobe-lite")
        let refused = try await StrobeCommand.run(executable: lite, ["light", "--backend", "http", "list"],
                                                  environment: ["LIFX_TOKEN": "t", "PATH": "/usr/bin:/bin"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("without the LIFX HTTP API"), "\(refused.stderr)")
        let help = try await StrobeCommand.run(executable: lite, ["light", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--backend"))
        let module = Data("AsyncHTTPClient".utf8)
        #expect(try Data(contentsOf: lite).range(of: module) == nil)
        #expect(try Data(contentsOf: RepositoryPaths.strobeExecutable).range(of: module) != nil)
    }

    @Test func bleAgainstABumbleLEDnetPeer() async throws {
        let peer = try await BumblePeripheral(script: "lednet.py", arguments: ["--names", "Triones-A1,LEDBLE-B2"])
        let ble = ["--transport", peer.transport, "--backend", "ble", "--discover-ms", "1500"]
        let list = try await StrobeCommand.run(["light"] + ble + ["list", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let lights = try JSONLines.objects(list.stdout)
        #expect(lights.map { $0["label"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") } == ["LEDBLE-B2", "Triones-A1"])
        // The peer starts at RGB 14 E1 76, on (the capture's state).
        let first = try #require(lights.first)
        #expect(first["power"] as? Bool == true)
        #expect(abs((first["brightness"] as? Double ?? 0) - Double(0xE1) / 255) < 0.001)

        let set = try await StrobeCommand.run(["light"] + ble + ["--selector", "label:Triones-A1", "set", "--color", "#0000FF", "--brightness", "0.5",
                                                                "--json"])
        #expect(set.status == 0, "\(set.stderr)")
        let off = try await StrobeCommand.run(["light"] + ble + ["--selector", "label:LEDBLE-B2", "off"])
        #expect(off.status == 0, "\(off.stderr)")
        let summary = try await peer.stop()
        let byName = Dictionary(uniqueKeysWithValues: (summary["lights"] as? [[String: Any]] ?? []).map { ($0["name"] as? String ?? "", $0) })
        #expect(byName["Triones-A1"]?["rgb"] as? [Int] == [0, 0, 128])
        #expect(byName["Triones-A1"]?["power"] as? Bool == true)
        #expect(byName["LEDBLE-B2"]?["power"] as? Bool == false)
        // Written as the capture's phone wrote them: colour then a state query.
        #expect((byName["Triones-A1"]?["commands"] as? [String])?.contains("5600008000f0aa") == true)
        #expect((byName["LEDBLE-B2"]?["commands"] as? [String])?.contains("cc2433") == true)
    }

    @Test func bleOnTheSimulatedWorld() async throws {
        let list = try await StrobeCommand.run(["light", "list", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(try JSONLines.objects(list.stdout).map { $0["label"] as? String } == ["LEDBLE-Key"])
        let dim = try await StrobeCommand.run(["light", "set", "--brightness", "0.2", "--json"])
        #expect(try JSONLines.objects(dim.stdout).map { $0["status"] as? String } == ["ok"])
    }
}
