import Foundation
import Testing

/// `strobe capture show` over every capture in `Captures/`: every record once, in order, with the
/// HCI packet type, command opcode, event code, ATT opcode and SMP code that tshark finds in it.
@Suite(.timeLimit(.minutes(5))) struct CaptureShowCommandTests {
    static let captures = ReplayScanTests.captures

    /// tshark's numbers as text ("0x0c03"), our numbers as integers: both as integers here.
    static func number(_ text: Substring) -> Int? {
        let first = text.split(separator: ",").first.map(String.init) ?? ""
        return first.hasPrefix("0x") ? Int(first.dropFirst(2), radix: 16) : Int(first)
    }

    @Test(arguments: captures)
    func everyRecordMatchesTShark(_ name: String) async throws {
        let path = RepositoryPaths.captures.appendingPathComponent(name).path
        let fields = ["frame.number", "hci_h4.type", "bthci_cmd.opcode", "bthci_evt.code", "btatt.opcode", "btsmp.opcode"]
        let frames = try await TSharkFrames.fields(path, fields).map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map { Self.number($0) }
        }
        let result = try await StrobeCommand.run(["capture", "show", path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try JSONLines.objects(result.stdout)
        #expect(records.count == frames.count)
        let types = ["command": 1, "acl": 2, "sco": 3, "event": 4, "iso": 5]
        var mismatches: [String] = []
        for (record, frame) in zip(records, frames) {
            let ours: [Int?] = [
                (record["index"] as? Int).map { $0 + 1 }, types[record["packet"] as? String ?? ""],
                record["hciOpcode"] as? Int, record["eventCode"] as? Int, record["attOpcode"] as? Int, record["smpCode"] as? Int,
            ]
            if ours != frame, mismatches.count < 5 { mismatches.append("ours \(ours) tshark \(frame)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func theSMPCaptureShowsThePairing() async throws {
        let path = RepositoryPaths.captures.appendingPathComponent("galaxys7_miband2_smp.btsnoop").path
        let result = try await StrobeCommand.run(["capture", "show", path, "--filter", "smp"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("SMP: Pairing Request (0x01) len 7"))
        #expect(result.stdout.contains("SMP: Pairing Response (0x02) len 7"))
        #expect(!result.stdout.contains("HCI Event"))
        // The keys the devices distributed are not printed, only their length.
        #expect(result.stdout.contains("SMP: Encryption Information (0x06) len 17\n            Long_Term_Key: (16 bytes of key material, not shown)"))
        #expect(result.stdout.contains("SMP: Signing Information (0x0A) len 17\n            Signature_Key: (16 bytes of key material, not shown)"))
    }
}
