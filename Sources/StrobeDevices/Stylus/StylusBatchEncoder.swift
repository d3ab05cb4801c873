/// Builds Samples notifications (simulated pens, benchmarks, captures), numbering batches from
/// `firstSequence` and wrapping 65535 -> 0. A batch that cannot be encoded throws and does not
/// use up a sequence number.
package struct StylusBatchEncoder: Sendable {
    package let includesPositions: Bool
    package private(set) var nextSequence: UInt16

    package init(includesPositions: Bool, firstSequence: UInt16 = 0) {
        self.includesPositions = includesPositions
        self.nextSequence = firstSequence
    }

    package static func encodedLength(sampleCount: Int, includesPositions: Bool) -> Int {
        StylusBatchView.headerLength + sampleCount * StylusBatchView.sampleLength(hasPositions: includesPositions)
    }

    /// The most samples one notification carries when values may be `valueLength` bytes long
    /// (ATT_MTU - 3); at most 255, the count field's limit.
    package static func maximumSampleCount(valueLength: Int, includesPositions: Bool) -> Int {
        let room = valueLength - StylusBatchView.headerLength
        guard room > 0 else { return 0 }
        return min(255, room / StylusBatchView.sampleLength(hasPositions: includesPositions))
    }

    /// Encodes one batch into a new array.
    package mutating func encode(_ samples: [StylusSample]) throws(StylusEncodingError) -> [UInt8] {
        let length = Self.encodedLength(sampleCount: samples.count, includesPositions: includesPositions)
        var bytes = [UInt8](repeating: 0, count: length)
        let result: Result<Int, StylusEncodingError> = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(StylusEncodingError) -> Int in try encode(samples, into: buffer) }
        }
        let written = try result.get()
        bytes.removeLast(bytes.count - written)
        return bytes
    }

    /// Encodes one batch at the start of `buffer`, allocating nothing; returns the bytes written.
    package mutating func encode(
        _ samples: [StylusSample], into buffer: UnsafeMutableRawBufferPointer
    ) throws(StylusEncodingError) -> Int {
        let result: Result<Int, StylusEncodingError> = samples.withUnsafeBufferPointer { samples in
            Result { () throws(StylusEncodingError) -> Int in try encode(samples, into: buffer) }
        }
        return try result.get()
    }

    /// Encodes one batch at the start of `buffer`, allocating nothing; returns the bytes written.
    /// Not generic on purpose: unspecialised generic code (as seen from other modules) allocates.
    package mutating func encode(
        _ samples: UnsafeBufferPointer<StylusSample>, into buffer: UnsafeMutableRawBufferPointer
    ) throws(StylusEncodingError) -> Int {
        let written = try Self.write(samples, sequence: nextSequence, includesPositions: includesPositions, into: buffer)
        nextSequence &+= 1
        return written
    }

    private static func write(
        _ samples: UnsafeBufferPointer<StylusSample>, sequence: UInt16, includesPositions: Bool,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(StylusEncodingError) -> Int {
        let count = samples.count
        guard count > 0 else { throw .emptyBatch }
        guard count <= 255 else { throw .tooManySamples(count) }
        let length = encodedLength(sampleCount: count, includesPositions: includesPositions)
        guard buffer.count >= length else { throw .bufferTooSmall(needed: length, available: buffer.count) }
        // Check everything before writing anything.
        for index in 0..<count {
            let sample = samples[index]
            guard sample.rawPressure <= StylusSample.maximumRawPressure else {
                throw .pressureOutOfRange(sampleIndex: index, value: sample.rawPressure)
            }
            if includesPositions, sample.position == nil { throw .missingPosition(sampleIndex: index) }
        }
        buffer.storeBytes(of: sequence.littleEndian, toByteOffset: 0, as: UInt16.self)
        buffer[2] = includesPositions ? 0x01 : 0x00
        buffer[3] = UInt8(count)
        var offset = StylusBatchView.headerLength
        for index in 0..<count {
            let sample = samples[index]
            buffer.storeBytes(of: sample.deltaMicroseconds.littleEndian, toByteOffset: offset, as: UInt16.self)
            buffer.storeBytes(of: sample.rawPressure.littleEndian, toByteOffset: offset + 2, as: UInt16.self)
            buffer[offset + 4] = sample.buttons.rawValue
            offset += 5
            if includesPositions, let position = sample.position {
                buffer.storeBytes(of: position.x.littleEndian, toByteOffset: offset, as: UInt16.self)
                buffer.storeBytes(of: position.y.littleEndian, toByteOffset: offset + 2, as: UInt16.self)
                offset += 4
            }
        }
        return offset
    }
}

/// Why a batch could not be encoded.
package enum StylusEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    case emptyBatch
    /// More than the count field's 255.
    case tooManySamples(Int)
    case pressureOutOfRange(sampleIndex: Int, value: UInt16)
    /// The encoder writes positions and this sample has none.
    case missingPosition(sampleIndex: Int)
    case bufferTooSmall(needed: Int, available: Int)

    package var description: String {
        switch self {
        case .emptyBatch: "a stylus batch needs at least one sample"
        case .tooManySamples(let count): "a stylus batch holds at most 255 samples, not \(count)"
        case .pressureOutOfRange(let index, let value): "stylus sample \(index) pressure \(value) is above 4095"
        case .missingPosition(let index): "stylus sample \(index) has no position for a batch with positions"
        case .bufferTooSmall(let needed, let available): "stylus batch needs \(needed) bytes, the buffer has \(available)"
        }
    }
}
