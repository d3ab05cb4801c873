import Foundation
import Testing

import StrobeCapture
import StrobeHost

@Suite struct CaptureRecordDecoderTests {
    /// Found by the btsnoop fuzz target: a record stamped before the first one printed its time
    /// with a negative count of padding zeros and trapped.
    static let times: [(Double, String)] = [
        (-0.000123, "-0.000123"), (-12.5, "-12.500000"), (0, "0.000000"), (223.410891, "223.410891"),
        (1e15, "1000000000000000.0"), (-Double.infinity, "-inf"),
    ]

    @Test(arguments: times)
    func timesPrintWhateverTheCaptureSays(seconds: Double, text: String) {
        #expect(DecodedRecord.seconds(seconds) == text)
    }

    @Test func theRegressionCaptureDecodesEveryRecord() throws {
        let url = Fixtures.capturesDirectory.deletingLastPathComponent()
            .appendingPathComponent("Tests/Fuzz/Regressions/btsnoop/negative-record-time")
        let bytes = try [UInt8](Data(contentsOf: url))
        let decoder = try CaptureRecordDecoder(bytes: bytes)
        var records: [DecodedRecord] = []
        while let record = try? decoder.next() { records.append(record) }
        #expect(!records.isEmpty)
        #expect(records.contains { $0.time < 0 })
        #expect(records.allSatisfy { !$0.text.isEmpty })
    }

    /// A command the stack sends shows its parameters by field; addresses as the spec writes
    /// them; one whose parameters do not fit its description says why, and shows hex.
    @Test func commandParametersShowByField() throws {
        let path = try Fixtures.scratchPath("capture-show-\(UUID().uuidString).btsnoop")
        defer { Fixtures.remove(path) }
        let writer = try BtsnoopWriter(path: path)
        let at = BtsnoopTimestamp(unixMicroseconds: 1_700_000_000_000_000)
        // LE Set Advertising Set Random Address: handle 1, C4:5E:00:00:00:02 (little endian on the wire).
        try writer.write(.command, direction: .hostToController, payload: [0x35, 0x20, 0x07, 0x01, 0x02, 0x00, 0x00, 0x00, 0x5E, 0xC4], at: at)
        // LE Set Scan Enable with a byte too many.
        try writer.write(.command, direction: .hostToController, payload: [0x0C, 0x20, 0x03, 0x01, 0x00, 0x07], at: at)
        try writer.close()
        let decoder = try CaptureRecordDecoder(path: path)
        let address = try #require(try decoder.next())
        #expect(address.hciOpcode == 0x2035)
        #expect(address.layers.first?.fields == [
            DecodedRecord.Field(name: "Advertising_Handle", value: "0x01"),
            DecodedRecord.Field(name: "Random_Address", value: "C4:5E:00:00:00:02"),
        ])
        let misfit = try #require(try decoder.next())
        #expect(misfit.layers.first?.fields == [
            DecodedRecord.Field(name: "malformed", value: "malformed LE Set Scan Enable (0x200C): 1 byte after the last parameter"),
            DecodedRecord.Field(name: "parameters", value: "010007"),
        ])
    }

    /// A credit-based channel's request shows its fields; a K-frame on a dynamic CID shows as one.
    @Test func creditBasedChannelsShowTheirCommandsAndKFrames() throws {
        let path = try Fixtures.scratchPath("capture-coc-\(UUID().uuidString).btsnoop")
        defer { Fixtures.remove(path) }
        let writer = try BtsnoopWriter(path: path)
        let at = BtsnoopTimestamp(unixMicroseconds: 1_700_000_000_000_000)
        // ACL handle 0x0040, first fragment; L2CAP length 14 on CID 5: LE Credit Based Connection Request.
        let request: [UInt8] = [0x14, 0x01, 0x0A, 0x00, 0x80, 0x00, 0x40, 0x00, 0x00, 0x02, 0xF7, 0x00, 0x0A, 0x00]
        try writer.write(.acl, direction: .hostToController, payload: [0x40, 0x20, 18, 0x00, 14, 0x00, 0x05, 0x00] + request, at: at)
        // A K-frame of 3 bytes (SDU length 1, one byte) on CID 0x0041.
        try writer.write(.acl, direction: .controllerToHost, payload: [0x40, 0x20, 7, 0x00, 3, 0x00, 0x41, 0x00, 0x01, 0x00, 0x2A], at: at)
        try writer.close()
        let decoder = try CaptureRecordDecoder(path: path)
        let command = try #require(try decoder.next())
        let signaling = try #require(command.layers.last)
        #expect(signaling.title == "LE Signaling: leCreditBasedConnectionRequest ident 1")
        #expect(signaling.fields.map(\.name) == ["spsm", "sourceCID", "mtu", "mps", "initialCredits"])
        #expect(signaling.fields.first?.value == "128")
        let frame = try #require(try decoder.next())
        #expect(frame.layers.last?.title == "K-frame on CID 0x0041 len 3")
        #expect(frame.layers.last?.fields == [DecodedRecord.Field(name: "payload", value: "01002a")])
    }

    /// The enhanced commands (0x17-0x1A) show their fields, CID lists included.
    @Test func enhancedCreditBasedCommandsShowTheirFields() throws {
        let path = try Fixtures.scratchPath("capture-ecfc-\(UUID().uuidString).btsnoop")
        defer { Fixtures.remove(path) }
        let writer = try BtsnoopWriter(path: path)
        let at = BtsnoopTimestamp(unixMicroseconds: 1_700_000_000_000_000)
        let commands: [LESignalingPacket] = [
            CreditBasedConnectionRequest(spsm: 0x80, mtu: 512, mps: 247, initialCredits: 10,
                                         sourceCIDs: [L2CAPChannelID(0x40), L2CAPChannelID(0x41)]).packet(identifier: 2),
            CreditBasedConnectionResponse(mtu: 256, mps: 100, initialCredits: 8, result: .invalidSourceCID,
                                          destinationCIDs: [L2CAPChannelID(0x45), L2CAPChannelID(0)]).packet(identifier: 2),
            CreditBasedReconfigureRequest(mtu: 1024, mps: 247, destinationCIDs: [L2CAPChannelID(0x40)]).packet(identifier: 3),
            CreditBasedReconfigureResult.mtuReduced.packet(identifier: 3),
        ]
        for command in commands {
            let l2cap = command.encoded
            let frame: [UInt8] = [UInt8(l2cap.count), 0x00, 0x05, 0x00] + l2cap
            try writer.write(.acl, direction: .hostToController, payload: [0x40, 0x20, UInt8(frame.count), 0x00] + frame, at: at)
        }
        try writer.close()
        let decoder = try CaptureRecordDecoder(path: path)
        var layers: [DecodedRecord.Layer] = []
        while let record = try decoder.next() { layers += record.layers.suffix(1) }
        #expect(layers.map(\.title) == ["LE Signaling: creditBasedConnectionRequest ident 2", "LE Signaling: creditBasedConnectionResponse ident 2",
                                        "LE Signaling: creditBasedReconfigureRequest ident 3", "LE Signaling: creditBasedReconfigureResponse ident 3"])
        #expect(layers[0].fields.map(\.name) == ["spsm", "mtu", "mps", "initialCredits", "sourceCIDs"])
        #expect(layers[0].fields.last?.value == "[CID 0x0040; CID 0x0041]")
        #expect(layers[1].fields.first { $0.name == "result" }?.value == "invalid source CID (0x0009)")
        #expect(layers[2].fields.map(\.value) == ["1024", "247", "[CID 0x0040]"])
        #expect(layers[3].fields == [DecodedRecord.Field(name: "result", value: "reduction in size of MTU not allowed (0x0001)")])
    }
}
