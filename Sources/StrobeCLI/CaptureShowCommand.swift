import ArgumentParser
import Strobe

/// `strobe capture show FILE`: every record decoded, as btmon shows a session.
struct CaptureShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Decode every record of a btsnoop capture: HCI commands and events, ACL, L2CAP, ATT, LE signalling, SMP.",
        discussion: "`<` marks what the host sent, `>` what it received. Unknown packets are shown raw, never dropped.")

    enum Layer: String, ExpressibleByArgument, CaseIterable {
        case hci, acl, l2cap, att, smp
    }

    @Argument(help: "The btsnoop file.") var file: String
    @Flag(help: "One JSON object per record.") var json = false
    @Option(help: "Only records with this layer: hci, acl, l2cap, att or smp.") var filter: Layer?

    func run() async throws {
        let decoder = try CaptureRecordDecoder(path: file)
        while let record = try decoder.next() {
            if let filter, !record.has(filter.rawValue) { continue }
            if json { try JSONOutput.print(record) } else { print(record.text) }
        }
    }
}
