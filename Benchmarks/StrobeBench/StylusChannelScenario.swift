import Foundation
import Strobe
import StrobeSim

/// `stylus-channel`: the simulated stylus's stroke as notifications, then the same stroke over
/// its LE credit-based channel, on the simulated world (real clock; the pen sends each batch as
/// soon as its link takes the one before, instead of one every 8 ms): samples per second through
/// to the app's drain, and the process's CPU time per sample. The process holds the pen's own
/// stack and the virtual air too, the same for both ways.
enum StylusChannelScenario {
    struct Run {
        var samples = 0
        var batches: UInt64 = 0
        var lostBatches: UInt64 = 0
        var dropped: UInt64 = 0
        var nanoseconds: UInt64 = 0
        var cpuNanoseconds: UInt64 = 0
    }

    static func run(batches: Int) async throws -> BenchReport {
        var figures: [String: Double?] = [:]
        var units: [String: String] = [:]
        for (name, overChannel) in [("notifications", false), ("channel", true)] {
            let run = try await stream(batches: batches, overChannel: overChannel)
            figures["\(name)SamplesPerSecond"] = Double(run.samples) / (Double(run.nanoseconds) / 1e9)
            figures["\(name)CPUPerSample"] = Double(run.cpuNanoseconds) / Double(max(1, run.samples))
            figures["\(name)Samples"] = Double(run.samples)
            figures["\(name)LostOrDroppedBatches"] = Double(run.lostBatches + run.dropped)
            units["\(name)SamplesPerSecond"] = "/s"
            units["\(name)CPUPerSample"] = "ns"
        }
        return BenchReport(
            scenario: "stylus-channel", figures: figures, units: units,
            notes: ["\(batches) batches of 8 samples each way; the window runs from attaching (subscribing, or opening the channel) to the last batch drained",
                    "CPU is the whole process's (the simulated pen's stack and the virtual air included), divided by the samples"])
    }

    static func stream(batches: Int, overChannel: Bool) async throws -> Run {
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { $0.kind == .stylus }
        scenario.devices[0].count = batches
        scenario.devices[0].batchIntervalMilliseconds = 0
        let world = SimWorld(scenario: scenario, clock: ContinuousClock())
        try await world.start()
        defer { world.stop() }
        let host = try await BluetoothHost(transport: world.makeHostController())
        defer { host.close() }
        let connection = try await host.central.connect(name: "Pen-S1")

        var run = Run()
        let start = nowNanoseconds()
        let cpuStart = processCPUNanoseconds()
        let stylus = overChannel
            ? try await Stylus.attachOverChannel(to: connection, ringCapacity: 4096)
            : try await Stylus.attach(to: connection.gatt, ringCapacity: 4096)
        // The app drains every millisecond until the last batch is in (or nothing came for 5 s).
        var idle = 0
        while run.batches + run.lostBatches < UInt64(batches), idle < 5000 {
            try await Task.sleep(for: .milliseconds(1))
            let drained = stylus.drain { event in
                if case .sample = event { run.samples += 1 }
            }
            idle = drained == 0 ? idle + 1 : 0
            run.batches = stylus.counters.batches
            run.lostBatches = stylus.counters.lostBatches
        }
        run.nanoseconds = nowNanoseconds() - start
        run.cpuNanoseconds = processCPUNanoseconds() - cpuStart
        run.dropped = stylus.ring.counters.dropped
        _ = try? await connection.disconnect()
        return run
    }
}
