#if canImport(Glibc)
import Glibc
#endif
import StrobeHCI

/// What was wrong with a btsnoop file, or with writing one. Records are numbered from 0 in file
/// order; `offset` is the byte offset of the record's header in the file.
public enum BtsnoopError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened or created.
    case cannotOpen(path: String, errno: Int32)
    /// `read` failed after the file was opened.
    case readFailed(errno: Int32)
    /// `write` failed, or wrote nothing.
    case writeFailed(errno: Int32)
    /// The file ended inside its 16-byte header.
    case truncatedHeader(bytes: Int)
    /// The first 8 bytes are not "btsnoop\0".
    case badMagic([UInt8])
    /// A version other than 1.
    case unsupportedVersion(UInt32)
    /// A datalink other than 1001, 1002 or 2001.
    case unsupportedDatalink(UInt32)
    /// The file ended inside a record: `missing` more bytes were needed, in the record's header
    /// when `inHeader`, otherwise in its data.
    case truncatedRecord(index: Int, offset: UInt64, missing: Int, inHeader: Bool)
    /// A record claims to include more bytes than the packet had.
    case includedExceedsOriginal(index: Int, offset: UInt64, included: UInt32, original: UInt32)
    /// A record announces more bytes than any HCI packet can hold.
    case hostileLength(index: Int, offset: UInt64, included: UInt32, limit: Int)
    /// The writer's datalink cannot express this packet (SCO or ISO in H1, a command from the
    /// controller in the monitor format, ...).
    case unrepresentable(type: HCIPacketType, direction: BtsnoopDirection, datalink: BtsnoopDatalink)
    /// A packet too large for any record this package will read back.
    case packetTooLarge(bytes: Int, limit: Int)
    /// A monitor record was written to a file whose datalink is not 2001.
    case notMonitorFormat(BtsnoopDatalink)
    /// The writer or reader was used after `close()`.
    case closed
    /// A recording finished with `count` packets it could not write; `reason` is the last one's.
    case recordsNotWritten(count: Int, reason: String)

    /// A one-line message naming the file, record (index and byte offset) or packet and what was
    /// wrong with it, with the system's text for an `errno`.
    public var description: String {
        switch self {
        case .cannotOpen(let path, let errno):
            return "cannot open \(path): \(Self.text(errno))"
        case .readFailed(let errno):
            return "reading the capture failed: \(Self.text(errno))"
        case .writeFailed(let errno):
            return "writing the capture failed: \(Self.text(errno))"
        case .truncatedHeader(let bytes):
            return "not a btsnoop file: it has \(bytes) bytes, fewer than the \(BtsnoopFormat.fileHeaderSize)-byte header"
        case .badMagic(let bytes):
            let hex = bytes.map { byte in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }.joined(separator: " ")
            return "not a btsnoop file: it starts with \(hex), not \"btsnoop\\0\""
        case .unsupportedVersion(let version):
            return "unsupported btsnoop version \(version) (only version 1 exists)"
        case .unsupportedDatalink(let number):
            return "unsupported btsnoop datalink \(number) (\(BtsnoopDatalink.name(of: number))); supported: 1001 (H1), 1002 (H4), 2001 (Linux monitor)"
        case .truncatedRecord(let index, let offset, let missing, let inHeader):
            let part = inHeader ? "header" : "data"
            return "record \(index) at byte \(offset) is truncated: the file ends \(missing) bytes short of the record's \(part)"
        case .includedExceedsOriginal(let index, let offset, let included, let original):
            return "record \(index) at byte \(offset) includes \(included) bytes of a \(original)-byte packet (included length larger than original length)"
        case .hostileLength(let index, let offset, let included, let limit):
            return "record \(index) at byte \(offset) announces \(included) bytes, more than any HCI packet (limit \(limit))"
        case .unrepresentable(let type, let direction, let datalink):
            return "a \(type) packet \(direction) cannot be written with datalink \(datalink)"
        case .packetTooLarge(let bytes, let limit):
            return "a \(bytes)-byte packet is larger than a btsnoop record may be (limit \(limit))"
        case .notMonitorFormat(let datalink):
            return "monitor records need datalink 2001, this file is \(datalink)"
        case .closed:
            return "the capture file is closed"
        case .recordsNotWritten(let count, let reason):
            return "the capture is incomplete: \(count) packet\(count == 1 ? "" : "s") could not be written (\(reason))"
        }
    }

    private static func text(_ errno: Int32) -> String {
        "\(String(cString: strerror(errno))) (errno \(errno))"
    }
}
