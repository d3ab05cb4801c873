import ArgumentParser
import Foundation
import Strobe

/// `strobe remote events`: a HID shutter remote's (or keyboard's) presses as they happen.
struct RemoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote", abstract: "Bluetooth shutter remotes and keyboards (HID over GATT).", subcommands: [RemoteEventsCommand.self])
}

struct RemoteEventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "Pair with (or encrypt to) a HID remote and print its presses and releases.",
        discussion: "Without --name, the strongest device advertising the HID service (0x1812). The remote is bonded as HID over GATT requires; the bond is used next time.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var device: DeviceSelectionOptions
    @OptionGroup var security: SecurityOptions
    @Option(help: "Stop after this many presses (and their releases).") var count: Int?
    @Option(help: "Stop after this many seconds.") var duration: Double = 10
    @Flag(help: "When the remote ends its link (as one that sleeps when idle does), reconnect it with its bond and go on.")
    var reconnect = false
    @Flag(help: "One JSON object per event, then a summary object.") var json = false

    struct Line: Encodable {
        /// Seconds since the first event.
        var t: Double
        var event: String
        var usage: String
    }

    struct Summary: Encodable {
        var presses: Int
        var releases: Int
        var reports: UInt64
        var malformed: UInt64
    }

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        guard duration > 0, duration <= 86_400 else { throw ValidationError("--duration must be in (0, 86400] seconds") }
    }

    func run() async throws {
        let session = try await ControllerSession.open(global) { try security.configure(&$0, global) }
        try await session.closing {
            let central = session.central
            let connection = try await device.connect(central, describing: "a HID device (service 0x1812)") {
                $0.serviceUUIDs.contains(HIDProfile.service)
            }
            // The stream is fed by the receive-path handler, in place before reports are enabled.
            let (events, sink) = AsyncStream.makeStream(of: ShutterRemoteEvent.self)
            let remote = try await ShutterRemote.attach(to: connection, handler: { sink.yield($0) })
            if !json {
                let device = remote.device
                let about = [device.information?.description, device.deviceInformation?.description].compactMap { $0 }.filter { !$0.isEmpty }
                print("remote \(connection.peerAddress), " + about.map { $0 + ", " }.joined()
                      + "\(device.inputReports.count) input report(s)\(device.usesBootProtocol ? " (boot keyboard)" : ""), security \(connection.securityLevel)")
            }
            let (json, count, reconnect) = (self.json, self.count, self.reconnect)
            let links = remote.reconnections()
            let reconnections = Task(executorPreference: session.clock.taskExecutor) {
                for await link in links where !json {
                    print("reconnected \(link.peerAddress), security \(link.securityLevel)")
                }
            }
            let linkWatch = Task(executorPreference: session.clock.taskExecutor) {
                if reconnect { await remote.keepConnected(using: central) } else { _ = await connection.disconnected() }
                sink.finish()
            }
            let collector = Task(executorPreference: session.clock.taskExecutor) { () -> (completed: Bool, presses: Int, releases: Int) in
                var presses = 0, releases = 0
                var first: HostTime?
                for await event in events {
                    // Seconds since the first event, from the times the reports' bytes were read.
                    let start = first ?? event.receivedAt
                    first = start
                    if event.kind == .press { presses += 1 } else { releases += 1 }
                    let t = Double(event.receivedAt.nanoseconds &- start.nanoseconds) / 1e9
                    if json {
                        try? JSONOutput.print(Line(t: (t * 1e6).rounded() / 1e6, event: event.kind.rawValue, usage: "\(event.usage)"))
                    } else {
                        print(String(format: "%.3f ", t) + "\(event.kind.rawValue) \(event.usage) (\(event.role.rawValue))")
                    }
                    if let count, releases >= count { return (true, presses, releases) }
                }
                return (Task.isCancelled, presses, releases)
            }
            let timer = Task(executorPreference: session.clock.taskExecutor) {
                try? await session.clock.sleep(for: .milliseconds(Int64(duration * 1000)))
                collector.cancel()
            }
            let result = await collector.value
            timer.cancel()
            linkWatch.cancel()
            reconnections.cancel()
            let counters = remote.counters
            let summary = Summary(presses: result.presses, releases: result.releases, reports: counters.reports, malformed: counters.malformed)
            if json {
                try JSONOutput.print(summary)
            } else {
                print("\(summary.presses) presses, \(summary.releases) releases, \(summary.reports) reports, \(summary.malformed) malformed")
            }
            if !result.completed, reconnect, let error = remote.lastError { throw RemoteCommandError.reconnectFailed(error) }
            if !result.completed, let lost = LinkLost(remote.connection, device: "remote") { throw lost }
            try await remote.connection.disconnect()
        }
    }
}

enum RemoteCommandError: Error, CustomStringConvertible {
    case reconnectFailed(any Error)

    var description: String {
        switch self {
        case .reconnectFailed(let error): "the remote's link ended and it could not be reconnected: \(error)"
        }
    }
}
