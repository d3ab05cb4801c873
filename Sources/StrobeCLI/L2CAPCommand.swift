import ArgumentParser
import Foundation
import Strobe

/// `strobe l2cap`: LE credit-based channels.
struct L2CAPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "l2cap", abstract: "LE credit-based channels (L2CAP connection-oriented channels).",
        subcommands: [L2CAPConnectCommand.self, L2CAPListenCommand.self])
}

/// `strobe l2cap connect`: opens a channel to a device's PSM, sends SDUs, prints what comes back.
struct L2CAPConnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Connect, open a channel to a PSM, send SDUs and print the SDUs that come back.",
        discussion: "Sends --count SDUs of --size bytes (byte i of SDU n is (n + i) mod 256), then prints SDUs until --receive have come, then a summary.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: GATTTargetOptions
    @Option(help: "The device's PSM (1...255; 0x prefix for hex).", transform: parsePSM) var psm: UInt16
    @Option(help: "SDUs to send.") var count = 0
    @Option(help: "Bytes in each SDU sent.") var size = 20
    @Option(help: "SDUs to wait for and print (default: as many as sent).") var receive: Int?
    @Option(help: "The largest SDU this side receives.") var channelMTU = 2048
    @Option(help: "The largest K-frame payload this side receives (23...1024).") var mps = 247
    @Option(help: "Seconds to wait for the SDUs to come back.") var wait: Double = 30
    @Flag(help: "One JSON object per SDU received, then one for the summary.") var json = false

    @Sendable static func parsePSM(_ text: String) throws -> UInt16 {
        guard let value = text.hasPrefix("0x") ? UInt16(text.dropFirst(2), radix: 16) : UInt16(text) else {
            throw ValidationError("--psm '\(text)' is not a number")
        }
        return value
    }

    struct SDU: Encodable {
        var index: Int
        var length: Int
        var hex: String

        /// One received SDU: a JSON object with its bytes, or a line with its length.
        static func print(_ sdu: [UInt8], index: Int, json: Bool) throws {
            if json {
                try JSONOutput.print(SDU(index: index, length: sdu.count, hex: sdu.hexString))
            } else {
                StrobeCLI.print("SDU \(index): \(sdu.count) bytes")
            }
        }
    }

    struct Summary: Encodable {
        var psm: UInt16
        var cid: UInt16
        var peerMTU: Int
        var sent: Int
        var received: Int
        var bytesReceived: Int
        var seconds: Double
    }

    func validate() throws {
        guard (1...255).contains(psm) else { throw ValidationError("--psm must be 1...255") }
        guard count >= 0, (0...65535).contains(size) else { throw ValidationError("--count must be 0 or more, --size 0...65535") }
        guard (23...65535).contains(channelMTU), (23...1024).contains(mps) else {
            throw ValidationError("--channel-mtu must be 23...65535 and --mps 23...1024")
        }
        if let receive, receive < 0 { throw ValidationError("--receive must be 0 or more") }
        guard wait > 0, wait <= 3600 else { throw ValidationError("--wait must be in (0, 3600] seconds") }
    }

    func run() async throws {
        let session = try await ControllerSession.open(global) { target.configure(&$0) }
        try await session.closing {
            let connection = try await target.connect(session)
            let parameters = L2CAPChannelParameters(mtu: UInt16(channelMTU), mps: UInt16(mps), initialCredits: 32)
            let channel = try await connection.openChannel(psm: psm, parameters: parameters)
            let start = HostTime.now()
            let expected = receive ?? count
            let json = json
            let reader = Task(executorPreference: session.clock.taskExecutor) {
                var received = (count: 0, bytes: 0)
                guard expected > 0 else { return received }
                for try await sdu in channel.sdus {
                    try SDU.print(sdu, index: received.count, json: json)
                    received.count += 1
                    received.bytes += sdu.count
                    if received.count == expected { break }
                }
                return received
            }
            for index in 0..<count { try await channel.send((0..<size).map { UInt8((index + $0) % 256) }) }
            let limit = Duration.milliseconds(Int64(wait * 1000))
            let received = try await withTimeout(limit, clock: session.clock) { try await reader.value }
            let seconds = Double(HostTime.now().nanoseconds &- start.nanoseconds) / 1e9
            let summary = Summary(psm: psm, cid: channel.cid.rawValue, peerMTU: channel.peerMTU, sent: count, received: received.count,
                                  bytesReceived: received.bytes, seconds: seconds)
            channel.close()
            try await connection.disconnect()
            if json {
                try JSONOutput.print(summary)
            } else {
                print("channel \(channel.cid) on PSM \(psm): sent \(count), received \(received.count) SDUs (\(received.bytes) bytes) in \(String(format: "%.3f", summary.seconds)) s")
            }
            guard received.count == expected else { throw Incomplete(received: received.count, expected: expected) }
        }
    }

    struct Incomplete: Error, CustomStringConvertible {
        var received: Int
        var expected: Int
        var description: String { "only \(received) of \(expected) SDUs came back" }
    }
}

/// `strobe l2cap listen`: advertises, takes one central, accepts its channel on a PSM and
/// prints the SDUs that come.
struct L2CAPListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Advertise a name, take one central and print the SDUs of the channel it opens on a PSM.",
        discussion: "Prints the address it advertises as, the central once it connected (and the PSM is listened on), then each SDU (with --echo sends it back), then a summary once --count SDUs came, the channel closed or --duration passed.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "The complete local name to advertise.") var name = "Strobe-L2CAP"
    @Option(help: "The PSM to accept channels on (1...255; 0x prefix for hex).", transform: L2CAPConnectCommand.parsePSM) var psm: UInt16
    @Option(help: "SDUs to wait for (0: until the channel closes).") var count = 0
    @Option(help: "Seconds to wait in all.") var duration: Double = 60
    @Option(help: "The largest SDU this side receives.") var channelMTU = 2048
    @Option(help: "The largest K-frame payload this side receives (23...1024).") var mps = 247
    @Flag(help: "Send each SDU back.") var echo = false
    @Flag(help: "JSON: the address, one object per SDU, then the summary.") var json = false

    struct Listening: Encodable {
        var address: String
        var psm: UInt16
    }

    struct Connected: Encodable {
        var connected: String
    }

    func validate() throws {
        guard (1...255).contains(psm) else { throw ValidationError("--psm must be 1...255") }
        guard count >= 0 else { throw ValidationError("--count must be 0 or more") }
        guard duration > 0, duration <= 86_400 else { throw ValidationError("--duration must be in (0, 86400] seconds") }
        guard (23...65535).contains(channelMTU), (23...1024).contains(mps) else {
            throw ValidationError("--channel-mtu must be 23...65535 and --mps 23...1024")
        }
    }

    func run() async throws {
        let session = try await ControllerSession.open(global)
        try await session.closing {
            let peripheral = session.host.peripheral(serving: GATTAttributeDatabase())
            let centrals = peripheral.incomingConnections()
            try await peripheral.startAdvertising(name: name)
            if json {
                try JSONOutput.print(Listening(address: "\(session.info.address)", psm: psm))
            } else {
                print("advertising \"\(name)\" as \(session.info.address), PSM \(psm)")
            }
            fflush(nil)  // what a central's script waits for
            let parameters = L2CAPChannelParameters(mtu: UInt16(channelMTU), mps: UInt16(mps), initialCredits: 32)
            let (psm, count, echo, json) = (psm, count, echo, json)
            let start = HostTime.now()
            let outcome = try await withTimeout(.milliseconds(Int64(duration * 1000)), clock: session.clock) {
                () async throws -> (channel: L2CAPChannel, count: Int, bytes: Int) in
                var connections = centrals.makeAsyncIterator()
                guard let connection = await connections.next() else { throw NoChannel() }
                try await peripheral.stopAdvertising()
                var channels = try connection.listen(psm: psm, parameters: parameters).makeAsyncIterator()
                if json {
                    try JSONOutput.print(Connected(connected: "\(connection.peerAddress)"))
                } else {
                    print("connected to \(connection.peerAddress)")
                }
                fflush(nil)
                guard let channel = await channels.next() else { throw NoChannel() }
                var received = (count: 0, bytes: 0)
                for try await sdu in channel.sdus {
                    try L2CAPConnectCommand.SDU.print(sdu, index: received.count, json: json)
                    received.count += 1
                    received.bytes += sdu.count
                    if echo { try await channel.send(sdu) }
                    if received.count == count { break }
                }
                // Closed in order: the peer has what was sent before it answers.
                channel.close()
                try await connection.disconnect()
                return (channel, received.count, received.bytes)
            }
            let summary = L2CAPConnectCommand.Summary(
                psm: psm, cid: outcome.channel.cid.rawValue, peerMTU: outcome.channel.peerMTU, sent: 0, received: outcome.count,
                bytesReceived: outcome.bytes, seconds: Double(HostTime.now().nanoseconds &- start.nanoseconds) / 1e9)
            if json {
                try JSONOutput.print(summary)
            } else {
                print("channel \(outcome.channel.cid) on PSM \(psm): received \(outcome.count) SDUs (\(outcome.bytes) bytes)")
            }
        }
    }

    struct NoChannel: Error, CustomStringConvertible {
        var description: String { "the link ended before the central opened a channel" }
    }
}
