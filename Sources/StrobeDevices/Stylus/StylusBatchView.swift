/// A borrowed, validated view of one Samples notification: `[seq u16][flags u8][count u8]` then
/// `count` samples. Validation happens once, in `init`; reading samples afterwards cannot fail
/// and allocates nothing (`for sample in view` iterates the buffer in place).
///
/// The view borrows the notification's buffer: use it only while that buffer is alive.
@usableFromInline package struct StylusBatchView: RandomAccessCollection {
    /// The size of the header `[seq u16][flags u8][count u8]`: 4 bytes.
    @inlinable package static var headerLength: Int { 4 }

    /// Bytes per sample.
    @inlinable package static func sampleLength(hasPositions: Bool) -> Int { hasPositions ? 9 : 5 }

    /// The notification value the view reads, borrowed and not copied.
    @usableFromInline package let bytes: UnsafeRawBufferPointer
    /// Counts batches; wraps at 65535.
    @usableFromInline package let sequence: UInt16
    /// The raw flags byte; bit 0 says samples carry positions, the others are reserved.
    @usableFromInline package let flags: UInt8
    /// The number of samples, 1...255.
    @usableFromInline package let count: Int
    /// Whether each sample carries `[x u16][y u16]` (flags bit 0).
    @usableFromInline package let hasPositions: Bool
    /// The sum of the samples' `deltaMicroseconds`: the time the batch covers, from the previous
    /// batch's last sample to this one's last. Summed while validating.
    @usableFromInline package let totalDeltaMicroseconds: UInt32
    @usableFromInline let stride: Int

    /// Validates one Samples notification without copying it. Throws `StylusDecodingError` when it
    /// is shorter than the header, its count is 0, its length is not that of `count` samples, or a
    /// pressure is above 4095.
    @inlinable @inline(__always)
    package init(_ bytes: UnsafeRawBufferPointer) throws(StylusDecodingError) {
        guard bytes.count >= Self.headerLength else { throw .truncatedHeader(length: bytes.count) }
        let sequence = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt16.self))
        let flags = bytes[2]
        let count = Int(bytes[3])
        let hasPositions = flags & 0x01 != 0
        guard count > 0 else { throw .emptyBatch(sequence: sequence) }
        let stride = Self.sampleLength(hasPositions: hasPositions)
        let expected = Self.headerLength + count * stride
        guard bytes.count == expected else {
            throw .lengthMismatch(count: count, hasPositions: hasPositions, expected: expected, actual: bytes.count)
        }
        // One pass with no branch per sample: the pressures are OR-ed together, which stays at
        // or under 4095 only when every one does (the field has 12 bits). The offsets cannot
        // overflow (count ≤ 255, stride ≤ 9), and 255 deltas fit in 32 bits.
        var total: UInt32 = 0
        var pressures: UInt16 = 0
        var base = Self.headerLength
        for _ in 0..<count {
            pressures |= UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: base &+ 2, as: UInt16.self))
            total &+= UInt32(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: base, as: UInt16.self)))
            base &+= stride
        }
        guard pressures <= StylusSample.maximumRawPressure else {
            throw Self.firstPressureOutOfRange(bytes, count: count, stride: stride)
        }
        totalDeltaMicroseconds = total
        self.bytes = bytes
        self.sequence = sequence
        self.flags = flags
        self.count = count
        self.hasPositions = hasPositions
        self.stride = stride
    }

    /// The error for the first sample whose pressure is above 4095 (called only when one is).
    @usableFromInline @inline(never)
    static func firstPressureOutOfRange(_ bytes: UnsafeRawBufferPointer, count: Int, stride: Int) -> StylusDecodingError {
        for index in 0..<count {
            let pressure = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: headerLength + index * stride + 2, as: UInt16.self))
            if pressure > StylusSample.maximumRawPressure { return .pressureOutOfRange(sampleIndex: index, value: pressure) }
        }
        preconditionFailure("no stylus sample's pressure is above 4095")
    }

    /// The first sample's index: 0.
    @inlinable package var startIndex: Int { 0 }
    /// One past the last sample's index: `count`.
    @inlinable package var endIndex: Int { count }

    /// The sample at `index` (0..<`count`), read from the buffer; traps outside that range.
    @inlinable @inline(__always)
    package subscript(index: Int) -> StylusSample {
        precondition(index >= 0 && index < count, "stylus sample index out of range")
        let base = Self.headerLength &+ index &* stride
        let position: StylusPosition? = hasPositions
            ? StylusPosition(x: u16(base &+ 5), y: u16(base &+ 7))
            : nil
        return StylusSample(
            deltaMicroseconds: u16(base), rawPressure: u16(base &+ 2),
            buttons: StylusButtons(rawValue: bytes[base &+ 4]), position: position)
    }

    @inlinable @inline(__always)
    func u16(_ offset: Int) -> UInt16 {
        UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
}
