import ArgumentParser
import Strobe

/// `strobe capture decode FILE`: every ATT PDU of a capture, one per line.
struct CaptureDecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "List the ATT PDUs of a btsnoop capture (L2CAP reassembled per connection and direction).",
        discussion: """
            With --tsv: frame, connection handle, ATT opcode, and for notifications and indications \
            the attribute handle and value, tab-separated, formatted as tshark prints frame.number, \
            bthci_acl.chandle, btatt.opcode, btatt.handle and btatt.value.
            """)

    @Argument(help: "The btsnoop file.")
    var file: String

    @Flag(help: "Tab-separated columns, as tshark -T fields prints them.")
    var tsv = false

    func run() async throws {
        let decoder = try CaptureATTDecoder(path: file)
        while let pdu = try decoder.next() {
            print(tsv ? pdu.tsv : pdu.text)
        }
    }
}
