import ArgumentParser
import Foundation
import Strobe

/// `strobe-bench`: where Strobe's performance figures come from.
@main
struct StrobeBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strobe-bench",
        abstract: "Measure Strobe: ring, decode, e2e (against Bumble), memory, sequencer, reconnect, stylus-channel, scale, soak.",
        discussion: "Build with `swift build -c release`; run with `swift run -c release strobe-bench [SCENARIO...] [--json]`.")

    enum Scenario: String, ExpressibleByArgument, CaseIterable {
        case ring, decode, e2e, memory, sequencer, reconnect, soak, scale
        case stylusChannel = "stylus-channel"

        /// What runs when no scenario is named: all but the long soak.
        static var standard: [Scenario] { allCases.filter { $0 != .soak } }
    }

    @Argument(help: "Scenarios to run (default: all but soak).")
    var scenarios: [Scenario] = []

    @Flag(help: "One JSON object per scenario, then one with the machine.")
    var json = false

    @Option(help: "decode: replay this btsnoop capture instead of generating one.")
    var capture: String?

    @Option(help: "decode: how many stylus batches to generate.")
    var batches = 1_000_000

    @Option(help: "Write the generated stylus capture to this file and exit (for Benchmarks/compare.sh).")
    var writeCapture: String?

    @Option(help: "ring: items to pass between the two threads.")
    var ringItems = 50_000_000

    @Option(help: "e2e: notifications to stream.")
    var e2eNotifications = 20_000

    @Option(help: "e2e: how the notifications are taken: callback (the ring's, as Bumble's on_value) or async (for await).")
    var e2eConsumer: EndToEndScenario.Consumer = .callback

    @Option(help: "e2e: the H4 transport's read coalescing in microseconds (0, the default, is off).")
    var e2eReadCoalescing = 0

    @Option(help: "sequencer: shots to time.")
    var sequencerShots = 200

    @Flag(help: "sequencer: with the simulated LEDnet light as a modelling light, down for each shot.")
    var sequencerModellingLights = false

    @Flag(help: "sequencer: triggered by the simulated HID shutter remote instead of the grip.")
    var sequencerRemote = false

    @Option(help: "reconnect: links of each kind (from the bond's cache, discovered), alternating.")
    var reconnectRounds = 20

    @Option(help: "memory: seconds of streaming at 1,000 batches/s.")
    var memorySeconds = 5

    @Option(help: "stylus-channel: batches of 8 samples to stream each way.")
    var stylusBatches = 20_000

    @Option(help: "scale: notifications per link count (1, 16 and 256 links).")
    var scaleNotifications = 1_000_000

    @Option(help: "scale: seconds each simulated world (1, 4 and 16 controllers of 16 pens) streams, after 1 s to settle (in the default set too); 0 leaves the worlds out.")
    var scaleWorldSeconds = 3.0

    @Option(help: "With --write-capture: the links the batches go round, their fragments interleaved as in scale.")
    var captureLinks = 1

    @Option(help: "soak: notifications to stream.")
    var soakNotifications = 10_000_000

    static func main() async {
        Allocations.preloadInterposer()
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand { try await command.run() } else { try command.run() }
        } catch {
            exit(withError: error)
        }
    }

    func run() async throws {
        if let writeCapture {
            guard captureLinks >= 1 else { throw ValidationError("--capture-links must be at least 1") }
            try StylusCapture.write(batches: batches, links: captureLinks, to: writeCapture)
            return
        }
        let chosen = scenarios.isEmpty ? Scenario.standard : scenarios
        for scenario in chosen {
            let report: BenchReport
            switch scenario {
            case .ring: report = RingScenario.run(items: ringItems)
            case .decode: report = try await DecodeScenario.run(batches: batches, capture: capture)
            case .e2e:
                guard let coalescing = ReadCoalescing(microseconds: e2eReadCoalescing) else {
                    throw ValidationError("--e2e-read-coalescing takes 0 to \(ReadCoalescing.maximumMicroseconds) microseconds")
                }
                report = try await EndToEndScenario.run(
                    notifications: e2eNotifications, consumer: e2eConsumer, readCoalescing: coalescing)
            case .memory: report = try await MemoryScenario.run(seconds: memorySeconds)
            case .sequencer:
                report = try await SequencerScenario.run(shots: sequencerShots, modellingLights: sequencerModellingLights,
                                                         trigger: sequencerRemote ? .remote : .grip)
            case .reconnect: report = try await ReconnectScenario.run(rounds: reconnectRounds)
            case .stylusChannel: report = try await StylusChannelScenario.run(batches: stylusBatches)
            case .scale: report = try await ScaleScenario.run(notifications: scaleNotifications, worldSeconds: scaleWorldSeconds)
            case .soak: report = try await SoakScenario.run(notifications: soakNotifications)
            }
            emit(report)
        }
        let machine = MachineInfo.current()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(["machine": machine]), as: UTF8.self))
        } else {
            print("machine: \(machine.cpu), \(machine.cores) cores, \(machine.configuration) build, allocation counting \(machine.allocationCounting ? "on" : "off")")
        }
    }

    private func emit(_ report: BenchReport) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: (try? encoder.encode(report)) ?? Data(), as: UTF8.self))
        } else {
            print(report.text())
        }
    }
}

extension EndToEndScenario.Consumer: ExpressibleByArgument {}
