import ArgumentParser
import Strobe

/// `strobe capture info FILE`: datalink, record count, time span, packet types and directions.
struct CaptureInfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Summarise a btsnoop capture: datalink, records, time span, packet types.")

    @Argument(help: "The btsnoop file.")
    var file: String

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        let summary = try CaptureSummary(path: file)
        if json {
            try JSONOutput.print(summary)
        } else {
            print(summary.text)
        }
    }
}
