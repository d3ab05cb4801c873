import ArgumentParser
import Logging
import Strobe

/// Options every command takes, before or after the command name.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Where the controller is: sim[:SCENARIO] (the simulated world, the default), hci:N (kernel user channel), tcp:HOST:PORT, unix:PATH, serial:DEV[,BAUD][,rtscts] or replay:FILE[,speed=N|max].",
        valueName: "transport"))
    var transport: String?

    @Option(name: .long, help: ArgumentHelp(
        "After each read that brings ACL data, wait this long before reading again (tcp, unix and serial transports; 0, off, to \(ReadCoalescing.maximumMicroseconds)). Fewer wakeups and TCP segments on a streaming link; adds up to this much latency.",
        valueName: "microseconds"))
    var readCoalescing = 0

    @Option(name: .long, help: ArgumentHelp("Record every HCI packet of the session to this btsnoop file.", valueName: "file"))
    var btsnoop: String?

    @Flag(name: .long, help: "Log what the stack counts and drops (malformed packets, failed commands, links that end and why) to stderr.")
    var verbose = false

    /// The stack's logger: stderr at debug level with `--verbose`, otherwise silent.
    var logger: Logger {
        guard verbose else { return .strobeQuiet }
        var logger = Logger(label: "strobe", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .debug
        return logger
    }

    func validate() throws {
        guard ReadCoalescing(microseconds: readCoalescing) != nil else {
            throw ValidationError("--read-coalescing takes 0 to \(ReadCoalescing.maximumMicroseconds) microseconds, not \(readCoalescing)")
        }
    }

    /// `--read-coalescing` for `spec`: only for a transport that reads a byte stream.
    func readCoalescingSetting(for spec: TransportSpec) throws -> ReadCoalescing {
        let setting = ReadCoalescing(microseconds: readCoalescing) ?? .off
        do {
            try spec.checkReadCoalescing(setting)
        } catch {
            throw ValidationError("--read-coalescing applies to tcp, unix and serial transports, not \(spec)")
        }
        return setting
    }

    func transportSpec() throws -> TransportSpec {
        guard let transport else { return .sim(scenario: nil) }
        do {
            return try TransportSpec(parsing: transport)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
