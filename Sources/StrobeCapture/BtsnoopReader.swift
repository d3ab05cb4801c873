#if canImport(Glibc)
import Glibc
#endif
import StrobeHCI

/// Streams the records of a btsnoop file through one fixed buffer: the file is never loaded
/// whole, and no record allocates. Each `next()` returns a view into that buffer, valid until the
/// following call. A malformed file gives a `BtsnoopError` (never a trap), and the reader then
/// repeats that error.
///
/// Not thread-safe: use one reader from one thread at a time.
public final class BtsnoopReader {
    /// The file header's datalink: how each record's bytes are framed (1001, 1002 or 2001).
    public private(set) var datalink: BtsnoopDatalink
    /// The file header's format version; always 1, since other versions are refused.
    public private(set) var version: UInt32
    /// Records returned so far.
    public private(set) var recordsRead = 0
    /// Of those, the records that carry no HCI packet (see `BtsnoopRecordKind.nonHCI`).
    public private(set) var nonHCIRecords = 0
    /// Byte offset in the file of the next record.
    public private(set) var offset: UInt64 = 0

    private enum Source {
        case file(Int32)
        case memory([UInt8], position: Int)
        case closed
    }

    private var source: Source
    /// Holds at least one whole record of the largest accepted size plus its header.
    private let buffer: UnsafeMutableRawBufferPointer
    /// Unconsumed bytes are `buffer[start..<end]`.
    private var start = 0
    private var end = 0
    private var sourceExhausted = false
    private var failure: BtsnoopError?

    static let bufferCapacity = 128 * 1024

    /// Opens `path` and reads its header.
    public convenience init(path: String) throws(BtsnoopError) {
        try self.init(source: .file(try FileIO.openForReading(path)))
    }

    /// Reads a capture held in memory (tests, captures received over the network).
    public convenience init(bytes: [UInt8]) throws(BtsnoopError) {
        try self.init(source: .memory(bytes, position: 0))
    }

    private init(source: Source) throws(BtsnoopError) {
        self.source = source
        buffer = .allocate(byteCount: Self.bufferCapacity, alignment: 8)
        // Provisional values so that the header can be read with the instance's own buffer.
        datalink = .h4
        version = 0
        do throws(BtsnoopError) {
            let header = try readHeader()
            datalink = header.datalink
            version = header.version
        } catch {
            closeSource()
            throw error
        }
    }

    deinit {
        closeSource()
        buffer.deallocate()
    }

    /// The next record, or `nil` at the end of the file.
    public func next() throws(BtsnoopError) -> BtsnoopRecord? {
        if let failure { throw failure }
        do throws(BtsnoopError) {
            return try readRecord()
        } catch {
            failure = error
            throw error
        }
    }

    /// Closes the file. Views returned earlier must no longer be used.
    public func close() {
        closeSource()
        if failure == nil { failure = .closed }
    }

    // MARK: - Parsing

    private func readHeader() throws(BtsnoopError) -> (version: UInt32, datalink: BtsnoopDatalink) {
        let have = try fill(toHave: BtsnoopFormat.fileHeaderSize)
        let magicBytes = min(have, BtsnoopFormat.magic.count)
        let leading = Array(UnsafeRawBufferPointer(rebasing: buffer[start..<start + magicBytes]))
        guard leading.elementsEqual(BtsnoopFormat.magic.prefix(magicBytes)) else { throw .badMagic(leading) }
        guard have >= BtsnoopFormat.fileHeaderSize else { throw .truncatedHeader(bytes: have) }
        let version = bigEndianUInt32(at: start + 8)
        let number = bigEndianUInt32(at: start + 12)
        guard version == BtsnoopFormat.version else { throw .unsupportedVersion(version) }
        guard let datalink = BtsnoopDatalink(rawValue: number) else { throw .unsupportedDatalink(number) }
        consume(BtsnoopFormat.fileHeaderSize)
        return (version, datalink)
    }

    private func readRecord() throws(BtsnoopError) -> BtsnoopRecord? {
        let index = recordsRead
        let recordOffset = offset
        let headerSize = BtsnoopFormat.recordHeaderSize
        let have = try fill(toHave: headerSize)
        if have == 0 { return nil }
        guard have >= headerSize else {
            throw .truncatedRecord(index: index, offset: recordOffset, missing: headerSize - have, inHeader: true)
        }
        let original = bigEndianUInt32(at: start)
        let included = bigEndianUInt32(at: start + 4)
        let flags = bigEndianUInt32(at: start + 8)
        let drops = bigEndianUInt32(at: start + 12)
        let timestamp = Int64(bitPattern: bigEndianUInt64(at: start + 16))
        // Bound the length before it is used for anything.
        guard included <= BtsnoopFormat.maximumIncludedLength else {
            throw .hostileLength(
                index: index, offset: recordOffset, included: included, limit: BtsnoopFormat.maximumIncludedLength)
        }
        guard included <= original else {
            throw .includedExceedsOriginal(index: index, offset: recordOffset, included: included, original: original)
        }
        let total = headerSize + Int(included)
        let available = try fill(toHave: total)
        guard available >= total else {
            throw .truncatedRecord(index: index, offset: recordOffset, missing: total - available, inHeader: false)
        }
        let data = UnsafeRawBufferPointer(rebasing: buffer[start + headerSize..<start + total])
        consume(total)
        recordsRead += 1
        let record = BtsnoopRecord(
            index: index, datalink: datalink, originalLength: original, flags: flags, drops: drops,
            timestamp: timestamp, data: data)
        if record.kind == .nonHCI { nonHCIRecords += 1 }
        return record
    }

    // MARK: - Buffering

    /// Reads until `count` unconsumed bytes are buffered or the source ends; returns how many are.
    /// `count` never exceeds the buffer's capacity.
    private func fill(toHave count: Int) throws(BtsnoopError) -> Int {
        while end - start < count && !sourceExhausted {
            if buffer.count - start < count {
                // Slide the unconsumed tail to the front so that the record fits.
                if end > start, let base = buffer.baseAddress {
                    memmove(base, base + start, end - start)
                }
                end -= start
                start = 0
            }
            let got = try readSource(into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]))
            if got == 0 { sourceExhausted = true } else { end += got }
        }
        return end - start
    }

    private func readSource(into space: UnsafeMutableRawBufferPointer) throws(BtsnoopError) -> Int {
        switch source {
        case .file(let fd):
            return try FileIO.read(fd, into: space)
        case .memory(let bytes, let position):
            let count = min(space.count, bytes.count - position)
            guard count > 0 else { return 0 }
            bytes.withUnsafeBytes { all in
                space.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[position..<position + count]))
            }
            source = .memory(bytes, position: position + count)
            return count
        case .closed:
            throw .closed
        }
    }

    private func consume(_ count: Int) {
        start += count
        offset += UInt64(count)
    }

    private func closeSource() {
        if case .file(let fd) = source { _ = Glibc.close(fd) }
        source = .closed
    }

    private func bigEndianUInt32(at position: Int) -> UInt32 {
        UInt32(bigEndian: UnsafeRawBufferPointer(buffer).loadUnaligned(fromByteOffset: position, as: UInt32.self))
    }

    private func bigEndianUInt64(at position: Int) -> UInt64 {
        UInt64(bigEndian: UnsafeRawBufferPointer(buffer).loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }
}
