import ArgumentParser
import Strobe

/// Options every command takes, before or after the command name.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Where the controller is: sim[:SCENARIO] (the simulated world, the default), hci:N (kernel user channel), tcp:HOST:PORT, unix:PATH, serial:DEV[,BAUD][,rtscts] or replay:FILE.",
        valueName: "transport"))
    var transport: String?

    @Option(name: .long, help: ArgumentHelp("Record every HCI packet of the session to this btsnoop file.", valueName: "file"))
    var btsnoop: String?

    func transportSpec() throws -> TransportSpec {
        guard let transport else { return .sim(scenario: nil) }
        do {
            return try TransportSpec(parsing: transport)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
