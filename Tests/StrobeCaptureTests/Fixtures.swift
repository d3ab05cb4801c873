import Foundation
import StrobeHCI
import StrobeBase
import Synchronization
import Testing

import StrobeCapture

/// The repository's Captures folder and scratch files for tests.
enum Fixtures {
    static let capturesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // StrobeCaptureTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("Captures")

    /// Every capture in Captures/ (everything but the documentation and the hash list).
    static func captureNames() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: capturesDirectory.path)) ?? []
        return names.filter { $0 != "README.md" && $0 != "SHA256SUMS" && !$0.hasPrefix(".") }.sorted()
    }

    static func capturePath(_ name: String) -> String {
        capturesDirectory.appendingPathComponent(name).path
    }

    static func captureBytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: capturesDirectory.appendingPathComponent(name)))
    }

    /// A fresh file path in a directory of its own, removed by the caller with `remove`.
    static func scratchPath(_ name: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("strobe-capture-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name).path
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

/// Builds btsnoop bytes field by field, independently of `BtsnoopWriter`, so that tests can
/// make files the writer never would.
struct CaptureBuilder {
    var bytes: [UInt8] = []

    init(magic: [UInt8] = Array("btsnoop".utf8) + [0], version: UInt32 = 1, datalink: UInt32 = 1002) {
        bytes = magic
        appendBigEndian(version)
        appendBigEndian(datalink)
    }

    mutating func record(
        _ data: [UInt8], flags: UInt32 = 0, drops: UInt32 = 0, timestamp: Int64 = 0x00E0_3AB4_4A67_6000,
        original: UInt32? = nil, included: UInt32? = nil
    ) {
        appendBigEndian(original ?? UInt32(data.count))
        appendBigEndian(included ?? UInt32(data.count))
        appendBigEndian(flags)
        appendBigEndian(drops)
        appendBigEndian(timestamp)
        bytes += data
    }

    private mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }
}

/// One record, copied out of the reader's buffer for comparison.
struct RecordCopy: Equatable, CustomStringConvertible {
    var kind: BtsnoopRecordKind
    var direction: BtsnoopDirection?
    var unixMicroseconds: Int64
    var flags: UInt32
    var payload: [UInt8]

    init(_ record: BtsnoopRecord) {
        kind = record.kind
        direction = record.direction
        unixMicroseconds = record.timestamp.unixMicroseconds
        flags = record.flags
        payload = Array(record.payload)
    }

    var description: String { "\(kind) \(direction.map(String.init(describing:)) ?? "-") \(payload.count) bytes" }
}

func readAll(_ reader: BtsnoopReader) throws -> [RecordCopy] {
    var records: [RecordCopy] = []
    while let record = try reader.next() { records.append(RecordCopy(record)) }
    return records
}

/// What the reader gives for `bytes`: the records before the first error, and that error.
func readUntilError(_ bytes: [UInt8]) -> (records: Int, error: BtsnoopError?) {
    do throws(BtsnoopError) {
        let reader = try BtsnoopReader(bytes: bytes)
        var count = 0
        do throws(BtsnoopError) {
            while try reader.next() != nil { count += 1 }
            return (count, nil)
        } catch {
            return (count, error)
        }
    } catch {
        return (0, error)
    }
}

/// A sink that keeps copies of what it receives and reports the close through a stream, so
/// tests wait for the reader thread without sleeping.
final class CollectingSink: HCIPacketSink {
    struct Packet: Equatable {
        var type: HCIPacketType
        var payload: [UInt8]
        var time: HostTime
    }

    private let state = Lock<(packets: [Packet], closes: [TransportError?])>(([], []))
    private let closeStream: AsyncStream<TransportError?>
    private let closeContinuation: AsyncStream<TransportError?>.Continuation
    /// Runs on the reader thread after each packet is stored, with the count so far.
    private let onPacket: @Sendable (Int) -> Void

    init(onPacket: @escaping @Sendable (Int) -> Void = { _ in }) {
        (closeStream, closeContinuation) = AsyncStream.makeStream(of: TransportError?.self)
        self.onPacket = onPacket
    }

    func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
        let packet = Packet(type: type, payload: Array(payload), time: time)
        let count = state.withLock { state in
            state.packets.append(packet)
            return state.packets.count
        }
        onPacket(count)
    }

    func transportDidClose(_ error: TransportError?) {
        state.withLock { $0.closes.append(error) }
        closeContinuation.yield(error)
    }

    var packets: [Packet] { state.withLock { $0.packets } }
    var closeCount: Int { state.withLock { $0.closes.count } }

    /// Waits for the first `transportDidClose` and returns its argument.
    func closed() async -> TransportError?? {
        for await error in closeStream { return .some(error) }
        return nil
    }
}
