import ArgumentParser
import Logging
import Strobe

/// Options every command takes, before or after the command name.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Where the controller is: sim[:SCENARIO] (the simulated world, the default), hci:N (kernel user channel), tcp:HOST:PORT, unix:PATH, serial:DEV[,BAUD][,rtscts] or replay:FILE[,speed=N|max].",
        valueName: "transport"))
    var transport: String?

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

    func transportSpec() throws -> TransportSpec {
        guard let transport else { return .sim(scenario: nil) }
        do {
            return try TransportSpec(parsing: transport)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
