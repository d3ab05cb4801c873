import ArgumentParser
import Foundation
import Strobe

/// `strobe stylus stream`: a pressure stylus's samples, pulled as a drawing app would.
struct StylusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stylus", abstract: "Pressure styluses (reference profile v1).", subcommands: [StylusStreamCommand.self])
}

struct StylusStreamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream", abstract: "Pull samples at a frame rate and print them, then a rate and drop summary.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var device: DeviceSelectionOptions
    @Option(help: "How long to stream, in seconds.") var duration: Double = 3
    @Option(help: "How often to pull batches, per second (a display's frame rate).") var frameRate: Double = 60
    @Flag(help: "One JSON object per sample, then a summary object.") var json = false
    @Flag(help: "Take the samples over the pen's LE credit-based channel (its Samples PSM) instead of as notifications.")
    var channel = false

    struct Sample: Encodable {
        var phase: String
        var pressure: Double
        var buttons: UInt8
        var timestampNanoseconds: UInt64
    }

    struct Summary: Encodable {
        var samples: Int
        var samplesPerSecond: Double
        var batches: UInt64
        var lostBatches: UInt64
        var droppedInRing: UInt64
        var malformedBatches: UInt64
    }

    func validate() throws {
        guard duration > 0, duration <= 3600, frameRate >= 1, frameRate <= 1000 else {
            throw ValidationError("--duration must be in (0, 3600] and --frame-rate in [1, 1000]")
        }
    }

    /// Time since the call, on `clock`.
    static func stopwatch<C: Clock>(_ clock: C) -> () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    func run() async throws {
        let session = try await ControllerSession.open(global)
        try await session.closing {
            let central = session.central
            let connection = try await device.connect(central, prefix: StylusProfile.localNamePrefix)
            let stylus = channel ? try await Stylus.attachOverChannel(to: connection) : try await Stylus.attach(to: connection.gatt)
            if !json {
                print("stylus \(connection.peerAddress), pen \(stylus.penIdentifier ?? "unknown"), side buttons \(stylus.buttonMap.side1) and "
                    + "\(stylus.buttonMap.side2)" + (stylus.channel.map { ", samples over \($0)" } ?? ""))
            }
            let elapsed = Self.stopwatch(session.clock)
            var samples = 0
            let frame = Duration.microseconds(Int64(1_000_000 / frameRate))
            // Until the duration passes or the link goes down (an error, after the summary).
            while elapsed() < .milliseconds(Int64(duration * 1000)), connection.disconnectReason == nil {
                try await session.clock.sleep(for: frame)
                stylus.drain { event in
                    switch event {
                    case .sample(let sample, let phase, let timestamp):
                        samples += 1
                        if json {
                            try? JSONOutput.print(Sample(phase: "\(phase)", pressure: Double(sample.pressure), buttons: sample.buttons.rawValue,
                                                         timestampNanoseconds: timestamp.nanoseconds))
                        }
                    case .sideButtonAction(let action, let button, _):
                        if !json { print("side button \(button): \(action)") }
                    }
                }
            }
            let took = elapsed()
            let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
            let counters = stylus.counters
            let summary = Summary(samples: samples, samplesPerSecond: Double(samples) / seconds, batches: counters.batches,
                                  lostBatches: counters.lostBatches, droppedInRing: stylus.ring.counters.dropped,
                                  malformedBatches: counters.malformedBatches)
            if json {
                try JSONOutput.print(["summary": summary])
            } else {
                print(String(format: "%d samples in %.1f s (%.0f samples/s), %llu batches, %llu lost, %llu dropped in the ring, %llu malformed",
                             samples, seconds, summary.samplesPerSecond, counters.batches, counters.lostBatches,
                             summary.droppedInRing, counters.malformedBatches))
            }
            if let lost = LinkLost(connection, device: "stylus") { throw lost }
            try await connection.disconnect()
        }
    }
}
