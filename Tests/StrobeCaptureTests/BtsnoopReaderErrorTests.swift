#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StrobeHCI
import Testing

import StrobeCapture

/// Malformed files: each gives its typed error, never a trap.
struct BtsnoopReaderErrorTests {
    /// Three records: a command (4 data bytes), an event (7) and an ACL packet (9).
    static func threeRecords() -> (bytes: [UInt8], recordStarts: [Int]) {
        var builder = CaptureBuilder()
        var starts: [Int] = []
        starts.append(builder.bytes.count)
        builder.record([0x01, 0x03, 0x0C, 0x00], flags: 2)
        starts.append(builder.bytes.count)
        builder.record([0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], flags: 3)
        starts.append(builder.bytes.count)
        builder.record([0x02, 0x40, 0x00, 0x04, 0x00, 0x00, 0x00, 0x04, 0x00], flags: 1)
        starts.append(builder.bytes.count)
        return (builder.bytes, starts)
    }

    @Test func wellFormedFileReadsAllRecords() throws {
        let (bytes, _) = Self.threeRecords()
        let records = try readAll(try BtsnoopReader(bytes: bytes))
        #expect(records.map(\.kind) == [.hci(.command), .hci(.event), .hci(.acl)])
        #expect(records.map(\.direction) == [.hostToController, .controllerToHost, .controllerToHost])
        #expect(records[1].payload == [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
    }

    @Test(arguments: 0..<16)
    func truncatedHeader(length: Int) {
        let (bytes, _) = Self.threeRecords()
        let result = readUntilError(Array(bytes.prefix(length)))
        #expect(result.error == .truncatedHeader(bytes: length))
        #expect(result.error?.description.contains("\(length) bytes") == true)
    }

    @Test func badMagic() {
        var bytes = Self.threeRecords().bytes
        bytes[3] = UInt8(ascii: "N")
        let result = readUntilError(bytes)
        #expect(result.error == .badMagic(Array(bytes.prefix(8))))
        #expect(result.error?.description.contains("not a btsnoop file") == true)
        // A short file that is not btsnoop at all is named as such, not as truncated.
        #expect(readUntilError(Array("hello".utf8)).error == .badMagic(Array("hello".utf8)))
    }

    @Test func unsupportedVersion() {
        let result = readUntilError(CaptureBuilder(version: 2).bytes)
        #expect(result.error == .unsupportedVersion(2))
    }

    @Test(arguments: [UInt32(0), 1000, 1003, 1004, 2002, 0xFFFF_FFFF])
    func unsupportedDatalink(number: UInt32) {
        let result = readUntilError(CaptureBuilder(datalink: number).bytes)
        #expect(result.error == .unsupportedDatalink(number))
        #expect(result.error?.description.contains("\(number)") == true)
    }

    @Test func recordCutInItsHeader() {
        let (bytes, starts) = Self.threeRecords()
        for cut in 1..<24 {
            let result = readUntilError(Array(bytes.prefix(starts[1] + cut)))
            #expect(result.records == 1)
            #expect(result.error == .truncatedRecord(index: 1, offset: UInt64(starts[1]), missing: 24 - cut, inHeader: true))
        }
    }

    @Test func recordCutInItsData() {
        let (bytes, starts) = Self.threeRecords()
        // The third record holds 9 bytes after its 24-byte header.
        for kept in 0..<9 {
            let result = readUntilError(Array(bytes.prefix(starts[2] + 24 + kept)))
            #expect(result.records == 2)
            #expect(result.error == .truncatedRecord(index: 2, offset: UInt64(starts[2]), missing: 9 - kept, inHeader: false))
            #expect(result.error?.description.contains("record 2") == true)
        }
    }

    /// Every possible cut of a real capture: whole records before the cut, then either a clean
    /// end (cut on a boundary) or a truncated record naming the right record and shortfall.
    @Test func everyCutOfARealCapture() throws {
        let bytes = try Fixtures.captureBytes("revcar-toy_att-only.btsnoop")
        // Record boundaries, from the lengths in the file.
        var boundaries = [16]
        while let last = boundaries.last, last < bytes.count {
            let included = Int(bytes[last + 4]) << 24 | Int(bytes[last + 5]) << 16 | Int(bytes[last + 6]) << 8 | Int(bytes[last + 7])
            boundaries.append(last + 24 + included)
        }
        #expect(boundaries.last == bytes.count)
        var record = 0
        for cut in 16...bytes.count {
            while record + 1 < boundaries.count && boundaries[record + 1] <= cut { record += 1 }
            let result = readUntilError(Array(bytes.prefix(cut)))
            if boundaries[record] == cut {
                #expect(result.error == nil && result.records == record, "cut at \(cut)")
            } else {
                let start = boundaries[record]
                let inHeader = cut - start < 24
                let missing = inHeader ? 24 - (cut - start) : boundaries[record + 1] - cut
                #expect(
                    result.error == .truncatedRecord(index: record, offset: UInt64(start), missing: missing, inHeader: inHeader),
                    "cut at \(cut)")
                #expect(result.records == record)
            }
        }
    }

    @Test func truncatedFileOnDisk() async throws {
        let bytes = try Fixtures.captureBytes("lgg6_zengge-ledstrip.btsnoop")
        let path = try Fixtures.scratchPath("cut.btsnoop")
        defer { Fixtures.remove(path) }
        try Fixtures.write(Array(bytes.prefix(bytes.count - 5)), to: path)
        let reader = try BtsnoopReader(path: path)
        var count = 0
        #expect(throws: BtsnoopError.self) {
            while try reader.next() != nil { count += 1 }
        }
        let frames = try await TShark.fields(Fixtures.capturePath("lgg6_zengge-ledstrip.btsnoop"), ["frame.number"])
        #expect(count == frames.count - 1)
    }

    @Test func includedLargerThanOriginal() {
        var builder = CaptureBuilder()
        builder.record([0x04, 0x0E, 0x00], flags: 3)
        builder.record([0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], flags: 3, original: 6)
        let result = readUntilError(builder.bytes)
        #expect(result.records == 1)
        #expect(result.error == .includedExceedsOriginal(index: 1, offset: 16 + 24 + 3, included: 7, original: 6))
    }

    @Test func originalLargerThanIncludedIsASnapshotNotAnError() throws {
        var builder = CaptureBuilder()
        builder.record([0x02, 0x40, 0x00, 0x1B, 0x00], flags: 1, original: 31)
        let reader = try BtsnoopReader(bytes: builder.bytes)
        let record = try #require(try reader.next())
        #expect(record.isTruncated)
        #expect(record.originalLength == 31)
    }

    @Test(arguments: [UInt32(BtsnoopFormat.maximumIncludedLength + 1), 0x0100_0000, 0xFFFF_FFFF])
    func hostileLength(included: UInt32) {
        var builder = CaptureBuilder()
        // No data follows: the length must be refused before any attempt to read it.
        builder.record([], original: 0xFFFF_FFFF, included: included)
        let result = readUntilError(builder.bytes)
        #expect(result.error == .hostileLength(index: 0, offset: 16, included: included, limit: BtsnoopFormat.maximumIncludedLength))
    }

    @Test func largestAcceptedRecordsBackToBack() throws {
        // Five records of the largest accepted size overflow the reader's buffer many times over.
        var builder = CaptureBuilder()
        for i in 0..<5 {
            var data = [UInt8](repeating: UInt8(i), count: BtsnoopFormat.maximumIncludedLength)
            data[0] = 0x02
            builder.record(data, flags: 1, timestamp: 0x00E0_3AB4_4A67_6000 + Int64(i))
        }
        let records = try readAll(try BtsnoopReader(bytes: builder.bytes))
        #expect(records.count == 5)
        for (i, record) in records.enumerated() {
            #expect(record.payload.count == BtsnoopFormat.maximumIncludedLength - 1)
            #expect(record.payload.allSatisfy { $0 == UInt8(i) })
        }
    }

    @Test func errorRepeatsAfterwards() throws {
        let (bytes, starts) = Self.threeRecords()
        let reader = try BtsnoopReader(bytes: Array(bytes.prefix(starts[1] + 3)))
        _ = try reader.next()
        let expected = BtsnoopError.truncatedRecord(index: 1, offset: UInt64(starts[1]), missing: 21, inHeader: true)
        #expect(throws: expected) { try reader.next() }
        #expect(throws: expected) { try reader.next() }
    }

    @Test func missingFile() {
        #expect(throws: BtsnoopError.cannotOpen(path: "/nonexistent/capture.btsnoop", errno: ENOENT)) {
            try BtsnoopReader(path: "/nonexistent/capture.btsnoop")
        }
    }

    @Test func closedReaderRefusesToRead() throws {
        let reader = try BtsnoopReader(bytes: Self.threeRecords().bytes)
        reader.close()
        #expect(throws: BtsnoopError.closed) { try reader.next() }
    }

    @Test func unknownH4IndicatorIsANonHCIRecord() throws {
        var builder = CaptureBuilder()
        builder.record([0xFF, 0x01], flags: 3)
        builder.record([], flags: 0)
        let reader = try BtsnoopReader(bytes: builder.bytes)
        let records = try readAll(reader)
        #expect(records.map(\.kind) == [.nonHCI, .nonHCI])
        #expect(records[0].payload == [0xFF, 0x01])
        #expect(reader.nonHCIRecords == 2)
    }

    /// Random corruption of a real capture: the reader either finishes or stops with a typed
    /// error, never reads past the input, and every record stays within the announced bounds.
    @Test func corruptedCapturesNeverEscapeTheirBounds() throws {
        let original = try Fixtures.captureBytes("revcar-toy_att-only.btsnoop")
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<300 {
            var bytes = original
            for _ in 0..<8 {
                let position = Int(generator.next() % UInt64(bytes.count))
                bytes[position] = UInt8(truncatingIfNeeded: generator.next())
            }
            if generator.next() % 4 == 0 { bytes.removeLast(Int(generator.next() % 64)) }
            guard let reader = try? BtsnoopReader(bytes: bytes) else { continue }
            while true {
                let record: BtsnoopRecord?
                do { record = try reader.next() } catch { break }
                guard let record else { break }
                #expect(record.data.count <= BtsnoopFormat.maximumIncludedLength)
                #expect(UInt32(record.data.count) <= record.originalLength)
                #expect(record.payload.count <= record.data.count)
            }
            #expect(reader.offset <= UInt64(bytes.count))
        }
    }
}

/// A small deterministic generator for the corruption test.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
