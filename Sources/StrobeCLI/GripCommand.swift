import ArgumentParser
import Foundation
import Strobe

/// `strobe grip events`: a camera grip's button events as they happen.
struct GripCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grip", abstract: "Camera grips (reference profile v1).", subcommands: [GripEventsCommand.self])
}

struct GripEventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "events", abstract: "Print the grip's events as they arrive.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var device: DeviceSelectionOptions
    @Option(help: "Stop after this many events.") var count: Int?
    @Option(help: "Stop after this many seconds.") var duration: Double = 10
    @Flag(help: "One JSON object per event.") var json = false

    struct Line: Encodable {
        var event: String
        var code: UInt8
        var sequence: UInt16
        var receivedAtNanoseconds: UInt64
    }

    func run() async throws {
        let session = try await ControllerSession.open(global)
        try await session.closing {
            let central = session.central
            let connection = try await device.connect(central, prefix: GripProfile.localNamePrefix)
            // The stream is fed by the receive-path handler, in place before notifications are
            // enabled, so that an event the grip sends at once is not lost.
            let (events, sink) = AsyncStream.makeStream(of: GripEventOccurrence.self)
            let grip = try await Grip.attach(to: connection, handler: { sink.yield($0) })
            if !json { print("grip \(connection.peerAddress), firmware \(grip.firmware.map { "\($0)" } ?? "unknown")") }
            let json = self.json
            let count = self.count
            // The link going down ends the stream early: an error, not a short count.
            let linkWatch = Task(executorPreference: session.clock.taskExecutor) {
                _ = await connection.disconnected()
                sink.finish()
            }
            let collector = Task(executorPreference: session.clock.taskExecutor) { () -> Bool in
                var seen = 0
                for await occurrence in events {
                    seen += 1
                    if json {
                        try? JSONOutput.print(Line(event: "\(occurrence.event)", code: occurrence.event.code, sequence: occurrence.sequence,
                                                   receivedAtNanoseconds: occurrence.receivedAt.nanoseconds))
                    } else {
                        print("\(occurrence.sequence)\t\(occurrence.event)")
                    }
                    if let count, seen >= count { return true }
                }
                // Cancelled by the timer: the duration passed. Otherwise the stream ended with the link.
                return Task.isCancelled
            }
            // Cancelling ends the event stream's iteration.
            let timer = Task(executorPreference: session.clock.taskExecutor) {
                try? await session.clock.sleep(for: .milliseconds(Int64(duration * 1000)))
                collector.cancel()
            }
            let completed = await collector.value
            timer.cancel()
            linkWatch.cancel()
            let counters = grip.counters
            if !json { print("\(counters.records) events, \(counters.lostRecords) lost, \(counters.unknownEvents) unknown, \(counters.malformedNotifications) malformed") }
            if !completed, let lost = LinkLost(connection, device: "grip") { throw lost }
            try await connection.disconnect()
        }
    }
}
