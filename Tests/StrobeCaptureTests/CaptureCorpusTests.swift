import Foundation
import StrobeHCI
import Testing

import StrobeCapture

/// Every real capture in Captures/ against tshark, frame by frame.
@Suite(.serialized) struct CaptureCorpusTests {
    @Test func capturesFolderHoldsTheCaptures() {
        // An empty list would make the parametrised tests below pass vacuously.
        #expect(Fixtures.captureNames().count >= 11, "Captures/ at \(Fixtures.capturesDirectory.path)")
    }

    @Test(arguments: Fixtures.captureNames())
    func readsLikeTShark(_ name: String) async throws {
        let path = Fixtures.capturePath(name)
        let reader = try BtsnoopReader(path: path)
        let records = try readAll(reader)
        let frames = try await TShark.fields(path, ["frame.number", "frame.time_epoch", "hci_h4.type", "hci_h4.direction"])

        #expect(records.count == frames.count, "\(name): record count")
        #expect(reader.recordsRead == records.count)
        #expect(reader.datalink == .h4)
        #expect(try reader.next() == nil, "the end stays the end")
        guard records.count == frames.count else { return }

        if let first = records.first, let last = records.last, let firstFrame = frames.first, let lastFrame = frames.last {
            #expect(first.unixMicroseconds == TShark.microseconds(firstFrame[1]), "\(name): first timestamp")
            #expect(last.unixMicroseconds == TShark.microseconds(lastFrame[1]), "\(name): last timestamp")
        }
        // Type (from the H4 byte) and direction (from the flags) of every frame.
        var mismatches = 0
        for (record, frame) in zip(records, frames) {
            let expectedType = frame.count > 2 ? TShark.hex(frame[2]) : nil
            let expectedDirection = frame.count > 3 ? TShark.hex(frame[3]) : nil
            let ourType: UInt32? = record.packetTypeRawValue
            let ourDirection: UInt32? = record.direction.map { $0 == .controllerToHost ? 1 : 0 }
            if ourType != expectedType || ourDirection != expectedDirection { mismatches += 1 }
        }
        #expect(mismatches == 0, "\(name): frames whose type or direction differ from tshark's")
    }

    @Test func headerOnlyCaptureHasNoRecords() throws {
        let reader = try BtsnoopReader(path: Fixtures.capturePath("edgecase_header-only_0-records.cfa"))
        #expect(reader.datalink == .h4)
        #expect(reader.version == 1)
        #expect(try reader.next() == nil)
        #expect(reader.recordsRead == 0)
        let summary = try CaptureSummary(path: Fixtures.capturePath("edgecase_header-only_0-records.cfa"))
        #expect(summary.records == 0)
        #expect(summary.firstTimestamp == nil)
    }

    @Test func vendorHandleRecordsDecodeByTheH4Byte() async throws {
        // The S24 capture flags ACL data on handle 0x0EDC as 3 ("received event"): the type must
        // come from the indicator byte.
        let reader = try BtsnoopReader(path: Fixtures.capturePath("s24ultra_dott-display_spen_galaxy-ring.btsnoop"))
        var vendorACL = 0
        while let record = try reader.next() {
            guard record.flags == 3, record.packetType == .acl, record.payload.count >= 2 else { continue }
            let handle = (UInt16(record.payload[0]) | UInt16(record.payload[1]) << 8) & 0x0FFF
            if handle == 0x0EDC { vendorACL += 1 }
        }
        let frames = try await TShark.fields(
            Fixtures.capturePath("s24ultra_dott-display_spen_galaxy-ring.btsnoop"), ["frame.number"],
            filter: "bthci_acl.chandle == 0x0edc")
        #expect(vendorACL == frames.count)
        #expect(vendorACL > 0)
    }
}

extension RecordCopy {
    /// The H4 packet type byte, as tshark's `hci_h4.type` shows it.
    var packetTypeRawValue: UInt32? {
        if case .hci(let type) = kind { UInt32(type.rawValue) } else { nil }
    }
}
