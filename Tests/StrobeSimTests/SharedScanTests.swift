import Foundation
import Strobe
import StrobeDevices
import StrobeHCI
import StrobeHost
import Testing

import StrobeSim

/// The kits made from one host and a CLI-style scan on it at once, in the simulated world: each
/// scans through the controller's one shared scan, and none turns it off under the others.
@Suite(.timeLimit(.minutes(1))) struct SharedScanTests {
    @Test func novaManagerGripManagerAndAScanRunTogether() async throws {
        try await VirtualTimeDriver.run(Self.novaManagerGripManagerAndAScanRunTogether)
    }

    static func novaManagerGripManagerAndAScanRunTogether(_ clock: VirtualClock) async throws {
        let world = SimWorld(scenario: .standard, clock: clock)
        try await world.start()
        defer { world.stop() }
        let virtual = world.makeHostController()
        let host = try await BluetoothHost(transport: virtual)
        defer { host.close() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-grip-\(UUID().uuidString)/grip.json")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let grips = GripManager(host: host, configuration: .init(rememberedGripFile: file))
        let novas = NovaFlashManager(host: host, configuration: .init(scanBurst: .seconds(1), ackTimeout: .seconds(10)))

        // The grip manager scans until told to stop; meanwhile the Nova manager's scan burst and
        // a two-second scan (what `strobe scan` runs) start and end.
        var discoveries = grips.discoveries().makeAsyncIterator()
        try await grips.startScanning()
        async let flashes = novas.connect(.all)
        async let seen = host.scan(for: .seconds(2))
        let names = try await Set(seen.compactMap(\.name))
        #expect(names == ["Nova", "Nova2", "Grip-S1", "Pen-S1", "Strobe-Test", "LEDBLE-Key", "AB Shutter3"])
        #expect(try await flashes.map(\.flash.model).sorted { "\($0)" < "\($1)" } == [.v1, .v2])

        // Both done, and the grip manager's scan runs on: the simulated controller still scans.
        #expect(try #require(await discoveries.next()).name == "Grip-S1")
        #expect(grips.currentState == .scanningForGrips)
        #expect(virtual.isScanning)
        try await grips.stopScanning()
        #expect(await eventually(clock) { !virtual.isScanning }, "the last scanner gone, the controller's scan is off")
    }
}
