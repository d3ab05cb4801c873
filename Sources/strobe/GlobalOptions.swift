import ArgumentParser
import Strobe

/// Options every command takes, before or after the command name.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Where the controller is: hci:N (kernel user channel), tcp:HOST:PORT, unix:PATH, serial:DEV[,BAUD][,rtscts] or replay:FILE.",
        valueName: "transport"))
    var transport: String?

    @Option(name: .long, help: ArgumentHelp("Record every HCI packet of the session to this btsnoop file.", valueName: "file"))
    var btsnoop: String?

    func transportSpec() throws -> TransportSpec {
        guard let transport else {
            throw ValidationError("no transport given: pass --transport hci:N, tcp:HOST:PORT, unix:PATH, serial:DEV or replay:FILE")
        }
        do {
            return try TransportSpec(parsing: transport)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
