import ArgumentParser
import Foundation
import Strobe
import StrobeSim

/// `strobe sim`: the simulated world.
struct SimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sim", abstract: "The simulated world: list its devices, or serve it over H4 to another host stack.",
        subcommands: [SimListCommand.self, SimServeCommand.self])
}

struct SimScenarioOption: ParsableArguments {
    @Option(help: "A scenario file (JSON); the standard world when absent.")
    var scenario: String?

    func load() throws -> SimScenario {
        try scenario.map { try SimScenario(contentsOf: $0) } ?? .standard
    }
}

struct SimListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Show the world's devices and its air.")
    @OptionGroup var world: SimScenarioOption
    @Flag(help: "Print the scenario as JSON (a starting point for a scenario file).") var json = false

    func run() async throws {
        let scenario = try world.load()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(scenario), as: UTF8.self))
            return
        }
        let world = SimWorld(scenario: scenario, clock: ContinuousClock())
        for device in world.devices {
            let d = device.description
            print("\(device.controller.configuration.address)  \(d.kind.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0))  \"\(d.name)\"  \(d.rssi) dBm  every \(BenchlessFormat.ms(d.advertisingIntervalMilliseconds)) ms")
        }
        print("air: seed \(scenario.seed), latency \(scenario.latencyMilliseconds ?? 0) ms, jitter \(scenario.jitterMilliseconds ?? 0) ms, loss \(scenario.loss ?? 0)")
    }
}

enum BenchlessFormat {
    static func ms(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
}

struct SimServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve a controller of the world over H4, for another host stack to drive.")
    @OptionGroup var world: SimScenarioOption
    @Option(help: ArgumentHelp("tcp:HOST:PORT or unix:PATH (PORT 0 picks a free one).", valueName: "endpoint"))
    var listen: String = "tcp:127.0.0.1:9001"
    @Option(help: "Stop after this many seconds (default: run until interrupted).") var duration: Double?

    func validate() throws {
        guard SimH4Server.Endpoint(listen) != nil else { throw ValidationError("--listen takes tcp:HOST:PORT or unix:PATH") }
    }

    func run() async throws {
        guard let endpoint = SimH4Server.Endpoint(listen) else { return }
        let world = SimWorld(scenario: try self.world.load(), clock: ContinuousClock())
        try await world.start()
        let server = try SimH4Server(world: world, listen: endpoint)
        server.run()
        print("serving the simulated world on \(server.endpoint) (\(world.devices.count) devices)")
        fflush(nil)  // the line is what a script waits for
        // Serves for the duration (or until interrupted), unless the server stops accepting hosts:
        // then it closes (a unix socket's file goes) and the world stops all the same.
        var failure: (any Error)?
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    if let duration {
                        try await Task.sleep(for: .milliseconds(Int64(duration * 1000)))
                    } else {
                        while true { try await Task.sleep(for: .seconds(3600)) }
                    }
                }
                group.addTask { throw SimServeError.acceptFailed(reason: "\(try await server.acceptFailure())") }
                defer { group.cancelAll() }
                try await group.next()
            }
        } catch {
            failure = error
        }
        server.close()
        world.stop()
        // The links' ends reach the host before the process exits and its socket closes.
        await server.flush()
        if let failure { throw failure }
    }
}

/// Why `strobe sim serve` stopped before its time.
enum SimServeError: Error, CustomStringConvertible {
    /// The listening socket failed to accept a host: the world can be reached no more.
    case acceptFailed(reason: String)

    var description: String {
        switch self {
        case .acceptFailed(let reason): "accepting a host failed: \(reason)"
        }
    }
}
