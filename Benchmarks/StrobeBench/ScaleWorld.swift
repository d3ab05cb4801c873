import Foundation
import Strobe
import StrobeSim

/// `scale`'s simulated world: `controllers` host controllers, each a `BluetoothHost` of its own
/// connected to `linksPerController` simulated styluses, every pen streaming its stroke as it
/// does on paper (1,000 samples/s: a batch of 8 every 8 ms) into the app's rings, on the real
/// clock. Reports the whole process's CPU per notification and memory per link: the heap the
/// links took as they were made, and the growth of resident memory, which is the process's (it
/// reuses what earlier worlds freed, so it is the rougher figure). The process holds both ends of
/// every link (each pen's own stack) and the virtual air.
enum ScaleWorld {
    /// Each pen's batch interval (8 samples a batch: 1,000 samples/s), set on every pen and the
    /// source of the offered rate.
    static let batchIntervalMilliseconds = 8.0
    static var batchesPerSecondPerPen: Double { 1000 / batchIntervalMilliseconds }

    struct Measured {
        var links: Int
        var notifications: UInt64
        var seconds: Double
        var cpuNanoseconds: UInt64
        var residentKilobytesPerLink: Double
        /// Heap allocated and not freed while the links were made and attached, per link.
        var heapKilobytesPerLink: Double?
        var lostOrDropped: UInt64

        var notificationsPerSecond: Double { Double(notifications) / seconds }
        /// What the pens send, all together.
        var offeredPerSecond: Double { Double(links) * ScaleWorld.batchesPerSecondPerPen }
        var cpuNanosecondsPerNotification: Double { Double(cpuNanoseconds) / Double(max(notifications, 1)) }
    }

    struct SetUpFailed: Error, CustomStringConvertible {
        var description: String
    }

    static func measure(controllers: Int, linksPerController: Int, seconds: Double) async throws -> Measured {
        let links = controllers * linksPerController
        // Enough batches that no pen's stroke ends inside the window.
        let strokeBatches = Int((seconds + 30) * batchesPerSecondPerPen)
        var scenario = SimScenario(devices: [])
        for index in 0..<links {
            var pen = SimulatedDeviceDescription(kind: .stylus, name: "Pen-\(index)", rssi: -50, advertisingIntervalMilliseconds: 20)
            pen.address = String(format: "C4:5E:00:01:%02X:%02X", (index >> 8) & 0xFF, index & 0xFF)
            pen.count = strokeBatches
            pen.batchIntervalMilliseconds = batchIntervalMilliseconds
            scenario.devices.append(pen)
        }
        let world = SimWorld(scenario: scenario, clock: ContinuousClock())
        try await world.start()
        defer { world.stop() }
        var hosts: [BluetoothHost] = []
        for _ in 0..<controllers { hosts.append(try await BluetoothHost(transport: world.makeHostController())) }
        defer { for host in hosts { host.close() } }
        let residentBefore = MemoryScenario.residentKilobytes()

        let (styluses, heapBytes) = try await Allocations.retainedBytes {
            try await withThrowingTaskGroup(of: [Stylus].self) { group in
                for (index, host) in hosts.enumerated() {
                    let pens = Array(world.devices[index * linksPerController..<(index + 1) * linksPerController])
                    group.addTask { try await attach(host, to: pens) }
                }
                return try await group.reduce(into: [Stylus]()) { $0 += $1 }
            }
        }
        guard styluses.count == links else { throw SetUpFailed(description: "\(styluses.count) of \(links) pens attached") }

        // The app drains every ring every 10 ms. A second to settle, then the window.
        func drainAll() -> UInt64 {
            var batches: UInt64 = 0
            for stylus in styluses {
                _ = stylus.drain { _ in }
                batches += stylus.counters.batches
            }
            return batches
        }
        let settle = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < settle {
            try await Task.sleep(for: .milliseconds(10))
            _ = drainAll()
        }
        let lostBefore = styluses.reduce(UInt64(0)) { $0 + $1.counters.lostBatches + $1.ring.counters.dropped }
        let startBatches = drainAll()
        let start = nowNanoseconds()
        let cpuStart = processCPUNanoseconds()
        let end = start + UInt64(seconds * 1e9)
        var batches = startBatches
        while nowNanoseconds() < end {
            try await Task.sleep(for: .milliseconds(10))
            batches = drainAll()
        }
        let elapsed = nowNanoseconds() - start
        let cpu = processCPUNanoseconds() - cpuStart
        let resident = MemoryScenario.residentKilobytes()
        let lost = styluses.reduce(UInt64(0)) { $0 + $1.counters.lostBatches + $1.ring.counters.dropped } - lostBefore
        return Measured(links: links, notifications: batches - startBatches, seconds: Double(elapsed) / 1e9, cpuNanoseconds: cpu,
                        residentKilobytesPerLink: Double(resident - residentBefore) / Double(links),
                        heapKilobytesPerLink: heapBytes.map { Double($0) / 1024 / Double(links) }, lostOrDropped: lost)
    }

    /// Connects `host` to its pens one after another (one LE Create Connection at a time), then
    /// attaches to them all at once; the hosts do this side by side.
    private static func attach(_ host: BluetoothHost, to pens: [SimulatedDevice]) async throws -> [Stylus] {
        var connections: [LEConnection] = []
        for pen in pens {
            connections.append(try await host.central.connect(to: pen.controller.configuration.address, addressType: .random,
                                                              timeout: .seconds(10), attempts: 3))
        }
        return try await withThrowingTaskGroup(of: Stylus.self) { attaching in
            for connection in connections {
                attaching.addTask { try await Stylus.attach(to: connection.gatt, ringCapacity: 256) }
            }
            return try await attaching.reduce(into: []) { $0.append($1) }
        }
    }
}
