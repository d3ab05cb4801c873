import Foundation
import Testing

@testable import StrobeCapture

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
}
