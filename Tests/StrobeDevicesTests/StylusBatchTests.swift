import Testing
import StrobeDevices

private let twoSamples = [
    StylusSample(deltaMicroseconds: 1000, rawPressure: 0x0FFF, buttons: .tipContact, position: StylusPosition(x: 0x1234, y: 0xABCD)),
    StylusSample(deltaMicroseconds: 500, rawPressure: 0, buttons: .hovering, position: StylusPosition(x: 1, y: 2)),
]

@Suite struct StylusBatchTests {
    @Test func encodesWithoutPositions() throws {
        var encoder = StylusBatchEncoder(includesPositions: false, firstSequence: 0x0102)
        let bytes = try encoder.encode(twoSamples)
        #expect(bytes == [
            0x02, 0x01, 0x00, 0x02,
            0xE8, 0x03, 0xFF, 0x0F, 0x01,
            0xF4, 0x01, 0x00, 0x00, 0x08,
        ])
        #expect(encoder.nextSequence == 0x0103)
    }

    @Test func encodesWithPositions() throws {
        var encoder = StylusBatchEncoder(includesPositions: true, firstSequence: 7)
        let bytes = try encoder.encode(twoSamples)
        #expect(bytes == [
            0x07, 0x00, 0x01, 0x02,
            0xE8, 0x03, 0xFF, 0x0F, 0x01, 0x34, 0x12, 0xCD, 0xAB,
            0xF4, 0x01, 0x00, 0x00, 0x08, 0x01, 0x00, 0x02, 0x00,
        ])
    }

    @Test(arguments: [false, true])
    func decodesWhatItEncodes(positions: Bool) throws {
        var encoder = StylusBatchEncoder(includesPositions: positions, firstSequence: 65535)
        let bytes = try encoder.encode(twoSamples)
        #expect(encoder.nextSequence == 0)
        try withBuffer(bytes) { (raw) throws(StylusDecodingError) in
            let batch = try StylusBatchView(raw)
            #expect(batch.sequence == 65535)
            #expect(batch.hasPositions == positions)
            #expect(batch.count == 2)
            #expect(batch.totalDeltaMicroseconds == 1500)
            let expected = positions ? twoSamples : twoSamples.map {
                StylusSample(deltaMicroseconds: $0.deltaMicroseconds, rawPressure: $0.rawPressure, buttons: $0.buttons)
            }
            #expect(Array(batch) == expected)
        }
    }

    @Test func pressureIsNormalisedFromTwelveBits() {
        #expect(StylusSample(deltaMicroseconds: 0, rawPressure: 4095, buttons: []).pressure == 1)
        #expect(StylusSample(deltaMicroseconds: 0, rawPressure: 0, buttons: []).pressure == 0)
        #expect(StylusSample(deltaMicroseconds: 0, rawPressure: 2048, buttons: []).pressure == Float(2048) / 4095)
        #expect(StylusSample(deltaMicroseconds: 0, pressure: 0.5, buttons: []).rawPressure == 2048)
        #expect(StylusSample(deltaMicroseconds: 0, pressure: 7, buttons: []).rawPressure == 4095)
        #expect(StylusSample(deltaMicroseconds: 0, pressure: .nan, buttons: []).rawPressure == 0)
    }

    @Test func encodesAndDecodesInCallerMemory() throws {
        var encoder = StylusBatchEncoder(includesPositions: true)
        let samples = (0..<26).map {
            StylusSample(deltaMicroseconds: 1000, rawPressure: UInt16($0 * 100), buttons: .tipContact,
                         position: StylusPosition(x: UInt16($0), y: 0))
        }
        let pressureSum = try withUnsafeTemporaryAllocation(byteCount: 244, alignment: 1) { buffer in
            let written = try encoder.encode(samples, into: buffer)
            #expect(written == 238)
            let batch = try StylusBatchView(UnsafeRawBufferPointer(rebasing: buffer[0..<written]))
            var sum = 0
            for sample in batch { sum += Int(sample.rawPressure) }
            return sum
        }
        #expect(pressureSum == (0..<26).reduce(0) { $0 + $1 * 100 })
    }

    @Test func sizesForAnAttributeValue() {
        #expect(StylusBatchEncoder.encodedLength(sampleCount: 26, includesPositions: true) == 238)
        #expect(StylusBatchEncoder.maximumSampleCount(valueLength: 244, includesPositions: true) == 26)
        #expect(StylusBatchEncoder.maximumSampleCount(valueLength: 244, includesPositions: false) == 48)
        #expect(StylusBatchEncoder.maximumSampleCount(valueLength: 20, includesPositions: false) == 3)
        #expect(StylusBatchEncoder.maximumSampleCount(valueLength: 4, includesPositions: false) == 0)
        #expect(StylusBatchEncoder.maximumSampleCount(valueLength: 5000, includesPositions: false) == 255)
    }

    @Test func encodingErrorsUseNoSequenceNumber() {
        var encoder = StylusBatchEncoder(includesPositions: true, firstSequence: 5)
        let plain = StylusSample(deltaMicroseconds: 1, rawPressure: 1, buttons: [], position: StylusPosition(x: 0, y: 0))
        var loud = plain
        loud.rawPressure = 4096
        var nowhere = plain
        nowhere.position = nil
        #expect(thrownError { () throws(StylusEncodingError) in try encoder.encode([StylusSample]()) } == .emptyBatch)
        #expect(thrownError { () throws(StylusEncodingError) in try encoder.encode(Array(repeating: plain, count: 256)) }
            == .tooManySamples(256))
        #expect(thrownError { () throws(StylusEncodingError) in try encoder.encode([plain, loud]) }
            == .pressureOutOfRange(sampleIndex: 1, value: 4096))
        #expect(thrownError { () throws(StylusEncodingError) in try encoder.encode([plain, plain, nowhere]) }
            == .missingPosition(sampleIndex: 2))
        var small = [UInt8](repeating: 0, count: 12)
        let tooSmall = small.withUnsafeMutableBytes { buffer in
            thrownError { () throws(StylusEncodingError) in try encoder.encode([plain], into: buffer) }
        }
        #expect(tooSmall == .bufferTooSmall(needed: 13, available: 12))
        #expect(encoder.nextSequence == 5)
    }

    @Test(arguments: [
        ([UInt8](), StylusDecodingError.truncatedHeader(length: 0)),
        ([0, 0, 0], .truncatedHeader(length: 3)),
        ([5, 0, 0, 0], .emptyBatch(sequence: 5)),
        ([5, 0, 0, 0, 1, 2, 3], .emptyBatch(sequence: 5)),
        ([1, 0, 0, 2, 0, 0, 0, 0, 0], .lengthMismatch(count: 2, hasPositions: false, expected: 14, actual: 9)),
        ([1, 0, 0, 1, 0, 0, 0, 0, 0, 0], .lengthMismatch(count: 1, hasPositions: false, expected: 9, actual: 10)),
        ([1, 0, 1, 1, 0, 0, 0, 0, 0], .lengthMismatch(count: 1, hasPositions: true, expected: 13, actual: 9)),
        ([1, 0, 0, 2, 0, 0, 0xFF, 0x0F, 0, 0, 0, 0x00, 0x10, 0], .pressureOutOfRange(sampleIndex: 1, value: 4096)),
        ([1, 0, 0, 1, 0, 0, 0xFF, 0xFF, 0], .pressureOutOfRange(sampleIndex: 0, value: 0xFFFF)),
        // Two above the range: the first is named.
        ([1, 0, 0, 3, 0, 0, 0xFF, 0x0F, 0, 0, 0, 0x00, 0x20, 0, 0, 0, 0x00, 0x10, 0],
         .pressureOutOfRange(sampleIndex: 1, value: 0x2000)),
    ])
    func malformedBatchesAreTypedErrorsAndCounted(bytes: [UInt8], expected: StylusDecodingError) {
        #expect(thrownError { () throws(StylusDecodingError) in
            try withBuffer(bytes) { (raw) throws(StylusDecodingError) in try StylusBatchView(raw) }
        } == expected)

        var decoder = StylusSampleDecoder()
        var delivered = 0
        let error = thrownError { () throws(StylusDecodingError) in
            try withBuffer(bytes) { (raw) throws(StylusDecodingError) in
                try decoder.decode(raw, receivedAt: .init(nanoseconds: 1_000_000_000)) { _ in delivered += 1 }
            }
        }
        #expect(error == expected)
        #expect(delivered == 0)
        #expect(decoder.counters.malformedBatches == 1)
        #expect(decoder.lastError == expected)
        #expect(decoder.counters.batches == 0)
    }

    @Test func unknownFlagBitsAreIgnored() throws {
        let batch = try withBuffer([0, 0, 0xFE, 1, 1, 0, 2, 0, 3]) { (raw) throws(StylusDecodingError) in
            let view = try StylusBatchView(raw)
            return (view.hasPositions, view.flags, Array(view))
        }
        #expect(batch.0 == false)
        #expect(batch.1 == 0xFE)
        #expect(batch.2 == [StylusSample(deltaMicroseconds: 1, rawPressure: 2, buttons: StylusButtons(rawValue: 3))])
    }
}

@Suite struct StylusButtonMapTests {
    @Test func encodesAndDecodes() throws {
        let map = StylusButtonMap(side1: .undo, side2: .erase)
        #expect(map.encoded() == [1, 4])
        #expect(try StylusButtonMap(decoding: [1, 4]) == map)
        #expect(try StylusButtonMap(decoding: [0, 3]) == StylusButtonMap(side1: .none, side2: .save))
        #expect(try StylusButtonMap(decoding: [2, 0]) == StylusButtonMap(side1: .redo, side2: .none))
        #expect(map[.side2] == .erase)
    }

    @Test func unknownActionsAreKept() throws {
        let map = try StylusButtonMap(decoding: [9, 200])
        #expect(map == StylusButtonMap(side1: .unknown(9), side2: .unknown(200)))
        #expect(map.unknownActionCount == 2)
        #expect(map.encoded() == [9, 200])
    }

    @Test(arguments: [[UInt8](), [1], [1, 2, 3]])
    func otherLengthsAreMalformed(bytes: [UInt8]) {
        #expect(thrownError { () throws(StylusError) in try StylusButtonMap(decoding: bytes) }
            == .malformedButtonMap(length: bytes.count))
    }
}
