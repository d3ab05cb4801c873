import ArgumentParser
import Foundation
import Histogram
import Strobe
import StrobeLights
import StrobeSequencer

/// `strobe shoot`: shots through the flash/shutter sequencer, each timed end to end.
struct ShootCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shoot",
        abstract: "Fire shots: every connected Nova lit, acknowledged, camera captured, flash off; timed.",
        discussion: "The camera is the built-in test camera (an exposure of --exposure-ms). On the simulated world by default. With --trigger grip or remote, each press of the grip's shutter button or the remote's shutter key fires a shot through the armed path.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "How many shots.") var count: Int = 10
    @Option(help: "What fires the shots: none (this command, every --interval-ms), grip or remote (their presses).")
    var trigger: Trigger = .none
    @Option(help: "With a grip or remote: seconds to wait for each press.") var triggerTimeout: Double = 10
    @Option(help: "Pause between shots, in milliseconds.") var intervalMs: Int = 100
    @Option(help: "Exposure of the test camera, in milliseconds.") var exposureMs: Int = 20
    @Option(help: "How long to wait for the flashes' acknowledgements, in milliseconds.") var ackDeadlineMs: Int = 150
    @Option(help: ArgumentHelp("When an acknowledgement is missing: capture-without-flash or abort.", valueName: "policy"))
    var policy: MissingAckPolicy = .captureWithoutFlash
    @Option(help: "off, gentle, warm or full.") var preset: FlashPreset = .full
    @Option(help: "How long to scan for flashes, in milliseconds.") var scanMs: Int = 1000
    @Flag(help: "One JSON object per shot, then {\"summary\": ...}.") var json = false
    @Option(help: ArgumentHelp("Modelling lights to take down for each shot and restore after it (a selector: all, label:LABEL, ...).",
                               valueName: "selector"))
    var modellingLights: String?
    @Option(help: ArgumentHelp("How the modelling lights are reached: ble (on --transport, the default), lan[:HOST[:PORT]] or http.",
                               valueName: "backend"))
    var lightsBackend: String = "ble"
    @Option(help: "The modelling lights' brightness during the exposure, 0 to 1 (default: off).") var lightsBrightness: Double?
    @Option(help: "How long the camera waits for the modelling lights, in milliseconds.") var lightsDeadlineMs: Int = 150

    enum Trigger: String, ExpressibleByArgument, CaseIterable { case none, grip, remote }

    enum MissingAckPolicy: String, ExpressibleByArgument, CaseIterable {
        case captureWithoutFlash = "capture-without-flash"
        case abort
        var value: ShotPolicy.MissingAck { self == .abort ? .abort : .captureWithoutFlash }
    }

    func validate() throws {
        guard (1...100_000).contains(count) else { throw ValidationError("--count must be between 1 and 100000") }
        guard intervalMs >= 0, exposureMs >= 0, ackDeadlineMs > 0, lightsDeadlineMs > 0 else { throw ValidationError("times must not be negative") }
        guard triggerTimeout > 0, triggerTimeout <= 3600 else { throw ValidationError("--trigger-timeout must be in (0, 3600] seconds") }
        if let lightsBrightness, !(0...1).contains(lightsBrightness) { throw ValidationError("--lights-brightness must be 0...1") }
        if let modellingLights {
            do { _ = try LightSelector(modellingLights) } catch { throw ValidationError("--modelling-lights: \(error)") }
        }
    }

    struct Summary: Encodable {
        var shots: Int
        var outcomes: [String: Int]
        var triggerToLitMicroseconds: Percentiles?
        var skewMicroseconds: Percentiles?
    }

    struct Percentiles: Encodable {
        var p50: Double
        var p99: Double
        var max: Double
    }

    func run() async throws {
        let session = try await ControllerSession.open(global)
        try await session.closing {
            let central = session.central
            let manager = NovaFlashManager(host: session.host, configuration: .init(scanBurst: .milliseconds(scanMs)))
            let connected = try await manager.connect(.all)
            guard !connected.isEmpty else { throw FlashCommandError.noFlash(scannedMs: scanMs) }
            var lights: ModellingLights?
            var lightsClient: Client?
            if let modellingLights {
                let backend = try await LightOptions.makeBackend(lightsBackend, discoverMs: scanMs, scenes: LocalScenes(file: LocalScenes.defaultFile),
                                                                 apiURL: LightOptions.defaultAPIURL, tokenFile: nil) { session.host }
                let client = Client(backend: backend)
                lightsClient = client
                try await client.fetch()
                let target = client.lightTargetWithSelector(try LightSelector(modellingLights))
                guard target.count > 0 else { throw LightsError.noLights(target.selector) }
                lights = ModellingLights(target: target, shotBrightness: lightsBrightness, deadline: .milliseconds(lightsDeadlineMs))
                if !json { print("\(target.count) modelling light(s): \(target.lights.map { "\"\($0.label)\"" }.joined(separator: ", "))") }
            }
            let sequencer = ShutterSequencer(
                flashes: manager, camera: ShutterSequencer.testCamera(exposure: .milliseconds(exposureMs), clock: session.clock),
                policy: ShotPolicy(settings: preset.settings, ackDeadline: .milliseconds(ackDeadlineMs), onMissingAck: policy.value),
                clock: session.clock, hostTime: session.hostTime, modellingLights: lights)
            await sequencer.arm()
            if !json { print("\(connected.count) flash(es): \(connected.map { "\($0.address) \"\($0.name)\"" }.joined(separator: ", "))") }
            let feed = RecordFeed(sequencer.records(), clock: session.clock)
            // A half press's preflash has no caller: each failure is told on stderr as it comes,
            // and the first fails the run at its end.
            let preflashFailures = sequencer.preflashFailures()
            let preflashWatch = Task(executorPreference: session.clock.taskExecutor) { () -> PreflashFailure? in
                var first: PreflashFailure?
                for await failure in preflashFailures {
                    printError("strobe: preflash of \(failure.address) failed: \(failure.error)\n")
                    first = first ?? failure
                }
                return first
            }
            defer { preflashWatch.cancel() }
            let triggerConnection = try await follow(trigger, central: central, sequencer: sequencer)

            var outcomes: [String: Int] = [:]
            var shots = 0
            var linkLost: LinkLost?
            var lit = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
            var skew = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
            for index in 0..<count {
                let record: ShotRecord
                if trigger == .none {
                    if index > 0 { try await session.clock.sleep(for: .milliseconds(intervalMs)) }
                    record = await sequencer.shoot()
                } else {
                    guard let next = await feed.next(within: .milliseconds(Int64(triggerTimeout * 1000))) else {
                        if let connection = triggerConnection, let lost = LinkLost(connection, device: trigger.rawValue) { linkLost = lost; break }
                        throw ShootCommandError.noPress(trigger.rawValue, seconds: triggerTimeout, shots: shots)
                    }
                    record = next
                }
                shots += 1
                outcomes[record.outcome.rawValue, default: 0] += 1
                if let time = record.triggerToLit { lit.record(time) }
                skew.record(record.skew)
                if json {
                    try JSONOutput.print(record)
                } else {
                    let litText = record.triggerToLit.map { String(format: "%.2f ms", Double($0) / 1e6) } ?? "-"
                    var lightsText = ""
                    if let lights = record.modellingLights {
                        lightsText = lights.failure.map { "; modelling lights: \($0)" }
                            ?? lights.dimmed.map { String(format: "; modelling lights down after %.2f ms, back after the OFF", Double($0 - record.triggerReceived) / 1e6) } ?? ""
                    }
                    let offText = record.flashes.compactMap { flash in flash.offFailure.map { "; OFF of \(flash.address) failed: \($0)" } }.joined()
                    print("shot \(record.shot): \(record.outcome.rawValue), lit after \(litText), skew \(String(format: "%.3f", Double(record.skew) / 1e6)) ms"
                        + lightsText + offText)
                }
                // A flash whose link went down ends the run: the shots left would fire without it.
                linkLost = connected.lazy.compactMap { LinkLost($0.connection, device: "flash \($0.address)") }.first
                if linkLost != nil { break }
            }
            func percentiles(_ histogram: Histogram<UInt64>) -> Percentiles? {
                guard histogram.totalCount > 0 else { return nil }
                return Percentiles(p50: Double(histogram.valueAtPercentile(50)) / 1000, p99: Double(histogram.valueAtPercentile(99)) / 1000,
                                   max: Double(histogram.max) / 1000)
            }
            let summary = Summary(shots: shots, outcomes: outcomes, triggerToLitMicroseconds: percentiles(lit), skewMicroseconds: percentiles(skew))
            if json {
                try JSONOutput.print(["summary": summary])
            } else {
                print("\(shots) shots: " + outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
                if let p = summary.triggerToLitMicroseconds {
                    print(String(format: "trigger to lit: p50 %.0f µs, p99 %.0f µs, max %.0f µs", p.p50, p.p99, p.max))
                }
            }
            // Every cleanup runs; a lost link is the news, else the first cleanup that failed.
            var cleanupFailure: (any Error)?
            do { try await manager.disable() } catch { cleanupFailure = cleanupFailure ?? error }
            do { try await lightsClient?.close() } catch { cleanupFailure = cleanupFailure ?? error }
            if let connection = triggerConnection {
                do { try await connection.disconnect() } catch { cleanupFailure = cleanupFailure ?? error }
            }
            preflashWatch.cancel()
            if let failure = await preflashWatch.value {
                cleanupFailure = cleanupFailure ?? ShootCommandError.preflashFailed(address: failure.address, failure.error)
            }
            if let failure = linkLost ?? cleanupFailure { throw failure }
        }
    }

    /// Connects the grip or the remote and has the sequencer follow its presses.
    private func follow(_ trigger: Trigger, central: Central, sequencer: ShutterSequencer) async throws -> LEConnection? {
        switch trigger {
        case .none:
            return nil
        case .grip:
            let connection = try await DeviceSelectionOptions.connectStrongest(
                central, scanMs: scanMs, describing: GripProfile.localNamePrefix + "…") { $0.name?.hasPrefix(GripProfile.localNamePrefix) == true }
            // Armed and handled from the subscription on: a grip may send as soon as it is subscribed.
            await sequencer.arm()
            _ = try await Grip.attach(to: connection, handler: sequencer.gripEventHandler())
            if !json { print("trigger: grip \(connection.peerAddress)") }
            return connection
        case .remote:
            let connection = try await DeviceSelectionOptions.connectStrongest(
                central, scanMs: scanMs, describing: "a HID device (service 0x1812)") { $0.serviceUUIDs.contains(HIDProfile.service) }
            await sequencer.arm()
            _ = try await ShutterRemote.attach(to: connection, handler: sequencer.remoteEventHandler())
            if !json { print("trigger: remote \(connection.peerAddress), security \(connection.securityLevel)") }
            return connection
        }
    }
}

/// The sequencer's records, taken one at a time with a deadline.
private final class RecordFeed: @unchecked Sendable {
    // Used by one task at a time (the command's loop, through `next`).
    private var iterator: AsyncStream<ShotRecord>.AsyncIterator
    private let clock: any Clock<Duration>

    init(_ records: AsyncStream<ShotRecord>, clock: any Clock<Duration>) {
        iterator = records.makeAsyncIterator()
        self.clock = clock
    }

    /// The next record, or nil when none came within `limit` (the feed then ends).
    func next(within limit: Duration) async -> ShotRecord? {
        await withTaskGroup(of: ShotRecord?.self) { group in
            group.addTask { await self.iterator.next() }
            group.addTask {
                try? await self.clock.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

enum ShootCommandError: Error, CustomStringConvertible {
    case noPress(String, seconds: Double, shots: Int)
    /// A half press's preflash failed on a flash (told on stderr when it happened).
    case preflashFailed(address: BluetoothAddress, NovaError)

    var description: String {
        switch self {
        case .noPress(let trigger, let seconds, let shots): "the \(trigger) sent no press within \(seconds) s (after \(shots) shot(s))"
        case .preflashFailed(let address, let error): "the preflash of \(address) failed at a half press: \(error)"
        }
    }
}
