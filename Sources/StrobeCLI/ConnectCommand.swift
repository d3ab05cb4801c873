import ArgumentParser
import Foundation
import Strobe

/// `strobe connect`: connects, exchanges the MTU, prints the connection; `--hold` watches it.
struct ConnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Connect, exchange the MTU, print the connection and disconnect.",
        discussion: "With --hold, stay connected and print link events (parameters, PHY, data length, disconnection) as they come; a link lost before the end is an error.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: GATTTargetOptions
    @Option(help: "Stay connected this many seconds, printing link events.") var hold: Double?
    @Flag(help: "One JSON object for the connection, then one per link event.") var json = false

    struct Report: Encodable {
        var address: String
        var addressType: String
        var handle: UInt16
        var role: String
        var intervalMilliseconds: Double
        var latency: UInt16
        var supervisionTimeoutMilliseconds: Int
        var mtu: Int
        var phy: Pair<String>
        var dataLength: Pair<UInt16>
    }

    struct Pair<Value: Encodable>: Encodable {
        var tx: Value
        var rx: Value
    }

    struct LinkEvent: Encodable {
        var t: Double
        var event: String
        var detail: String
    }

    func validate() throws {
        if let hold, !(hold > 0 && hold <= 86_400) { throw ValidationError("--hold must be in (0, 86400] seconds") }
    }

    func run() async throws {
        let session = try await ControllerSession.open(global) { target.configure(&$0) }
        try await session.closing {
            // Subscribed before connecting, and only to hold: the link's first events come at once.
            // Their times count from here, so that one from the connection's set-up is not before
            // the start.
            let events = hold == nil ? nil : session.controller.events()
            let start = HostTime.now()
            let connection = try await target.connect(session)
            let report = Self.report(connection)
            if json {
                try JSONOutput.print(report)
            } else {
                print("""
                    connected to \(report.address) (\(report.addressType)), handle \(connection.handle), role \(report.role)
                    interval \(String(format: "%.2f", report.intervalMilliseconds)) ms, latency \(report.latency), supervision timeout \(report.supervisionTimeoutMilliseconds) ms
                    ATT MTU \(report.mtu), PHY \(report.phy.tx)/\(report.phy.rx), data length \(report.dataLength.tx)/\(report.dataLength.rx) bytes (tx/rx)
                    """)
            }
            guard let hold, let events else {
                try await connection.disconnect()
                return
            }
            let watching = Task(executorPreference: session.clock.taskExecutor) {
                for await timed in events {
                    guard let (name, detail) = Self.describe(timed.event, handle: connection.handle) else { continue }
                    let event = LinkEvent(t: (Double(timed.time.nanoseconds &- start.nanoseconds) / 1e9 * 1e6).rounded() / 1e6,
                                          event: name, detail: detail)
                    if json { try? JSONOutput.print(event) } else { print(String(format: "%.3f ", event.t) + "\(name): \(detail)") }
                    if name == "disconnected" { return }
                }
            }
            // Until the hold ends or the link does, whichever is first.
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await session.clock.sleep(for: .milliseconds(Int64(hold * 1000))) }
                group.addTask { _ = await connection.disconnected() }
                await group.next()
                group.cancelAll()
            }
            if let lost = LinkLost(connection, device: "device") {
                _ = await watching.value
                throw lost
            }
            watching.cancel()
            try await connection.disconnect()
        }
    }

    static func report(_ connection: LEConnection) -> Report {
        let parameters = connection.parameters
        return Report(
            address: "\(connection.peerAddress)", addressType: "\(connection.peerAddressType)", handle: connection.handle.rawValue,
            role: connection.role == .central ? "central" : "peripheral",
            intervalMilliseconds: Double(parameters.interval) * 1.25, latency: parameters.latency,
            supervisionTimeoutMilliseconds: Int(parameters.supervisionTimeout) * 10, mtu: connection.bearer.mtu,
            phy: Pair(tx: "\(connection.phy.tx)", rx: "\(connection.phy.rx)"),
            dataLength: Pair(tx: connection.dataLength.maxTxOctets, rx: connection.dataLength.maxRxOctets))
    }

    /// The events of this link worth a line: name and what changed.
    static func describe(_ event: HCIEvent, handle: ConnectionHandle) -> (String, String)? {
        switch event {
        case .leConnectionUpdateComplete(let update) where update.connectionHandle == handle:
            return ("parameters", "\(update.status), interval \(String(format: "%.2f", Double(update.connectionInterval) * 1.25)) ms, "
                    + "latency \(update.peripheralLatency), supervision timeout \(Int(update.supervisionTimeout) * 10) ms")
        case .leRemoteConnectionParameterRequest(let request) where request.connectionHandle == handle:
            return ("parameterRequest", "asked by the peer: interval \(String(format: "%.2f", Double(request.intervalMin) * 1.25))"
                    + "-\(String(format: "%.2f", Double(request.intervalMax) * 1.25)) ms, latency \(request.maxLatency), "
                    + "supervision timeout \(Int(request.supervisionTimeout) * 10) ms")
        case .lePHYUpdateComplete(let update) where update.connectionHandle == handle:
            return ("phy", "\(update.status), \(update.txPHY)/\(update.rxPHY) (tx/rx)")
        case .leDataLengthChange(let change) where change.connectionHandle == handle:
            return ("dataLength", "\(change.maxTxOctets)/\(change.maxRxOctets) bytes (tx/rx)")
        case .disconnectionComplete(let disconnection) where disconnection.connectionHandle == handle:
            return ("disconnected", "\(disconnection.reason)")
        default:
            return nil
        }
    }
}
