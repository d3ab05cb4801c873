import StrobeHCI
import Testing
import StrobeDevices

private func ms(_ milliseconds: Double) -> HostTime {
    HostTime(nanoseconds: UInt64((milliseconds * 1_000_000).rounded()))
}

private func batch(_ sequence: UInt16, _ deltas: [UInt16], buttons: [StylusButtons]? = nil) -> [UInt8] {
    var encoder = StylusBatchEncoder(includesPositions: false, firstSequence: sequence)
    let samples = deltas.enumerated().map { index, delta in
        StylusSample(deltaMicroseconds: delta, rawPressure: 100, buttons: buttons?[index] ?? .tipContact)
    }
    return (try? encoder.encode(samples)) ?? []
}

/// Feeds one notification and returns the sample timestamps delivered.
private func timestamps(_ decoder: inout StylusSampleDecoder, _ bytes: [UInt8], at arrival: HostTime) throws -> [HostTime] {
    var stamps: [HostTime] = []
    try withBuffer(bytes) { (raw) throws(StylusDecodingError) in
        try decoder.decode(raw, receivedAt: arrival) { event in
            if case .sample(_, let timestamp) = event { stamps.append(timestamp) }
        }
    }
    return stamps
}

@Suite struct StylusSampleDecoderTests {
    @Test func timestampsFollowThePensClockAnchoredOnArrival() throws {
        var decoder = StylusSampleDecoder()
        // The first batch ends when it arrives.
        #expect(try timestamps(&decoder, batch(0, [1000, 1000, 1000]), at: ms(10_000))
            == [ms(9_998), ms(9_999), ms(10_000)])
        // In order: continues from the last sample, whatever the arrival jitter.
        #expect(try timestamps(&decoder, batch(1, [1000, 1000]), at: ms(10_005)) == [ms(10_001), ms(10_002)])
        #expect(decoder.counters.reanchors == 0)
        // Batch 2 was lost: the time it covered is unknown, so anchor on arrival again.
        #expect(try timestamps(&decoder, batch(3, [1000]), at: ms(10_020)) == [ms(10_020)])
        #expect(decoder.counters.lostBatches == 1)
        // Far behind arrival (clock drift, a stall): re-anchored.
        #expect(try timestamps(&decoder, batch(4, [1000]), at: ms(10_200)) == [ms(10_200)])
        #expect(decoder.counters.reanchors == 1)
        // Ahead of arrival: re-anchored, and never earlier than what was already delivered.
        #expect(try timestamps(&decoder, batch(5, [1000, 1000]), at: ms(10_200.5)) == [ms(10_200), ms(10_200.5)])
        #expect(decoder.counters.reanchors == 2)
        #expect(decoder.counters.batches == 5)
        #expect(decoder.counters.samples == 9)
        #expect(decoder.lastSampleTime == ms(10_200.5))
    }

    @Test func aBatchThatClaimsMoreTimeThanTheClockHasStartsAtZero() throws {
        var decoder = StylusSampleDecoder()
        #expect(try timestamps(&decoder, batch(0, [60000, 1000]), at: ms(0.5)) == [ms(0), ms(0.5)])
    }

    @Test func outOfOrderBatchesAreCountedAndReanchored() throws {
        var decoder = StylusSampleDecoder()
        _ = try timestamps(&decoder, batch(8, [1000]), at: ms(1000))
        #expect(try timestamps(&decoder, batch(8, [1000]), at: ms(1003)) == [ms(1003)])
        #expect(decoder.counters.outOfOrderBatches == 1)
        #expect(decoder.counters.lostBatches == 0)
    }

    @Test func sequenceGapsAcrossTheWrapCountLostBatches() throws {
        var decoder = StylusSampleDecoder()
        for (sequence, time) in [(UInt16(65534), 1.0), (65535, 2.0), (0, 3.0), (4, 8.0)] {
            _ = try timestamps(&decoder, batch(sequence, [1000]), at: ms(1000 + time))
        }
        #expect(decoder.counters.lostBatches == 3)
    }

    @Test func sideButtonPressesBecomeTheirMappedActions() throws {
        var decoder = StylusSampleDecoder(buttonMap: StylusButtonMap(side1: .undo, side2: .none))
        let held: [StylusButtons] = [.tipContact, [.tipContact, .sideButton1], [.tipContact, .sideButton1], .tipContact, .sideButton2]
        var events: [StylusEvent] = []
        try withBuffer(batch(0, [1000, 1000, 1000, 1000, 1000], buttons: held)) { (raw) throws(StylusDecodingError) in
            try decoder.decode(raw, receivedAt: ms(100)) { events.append($0) }
        }
        let changes = events.compactMap { event -> StylusButtons? in
            if case .buttonsChanged(_, let to, _) = event { to } else { nil }
        }
        #expect(changes == [.tipContact, [.tipContact, .sideButton1], .tipContact, .sideButton2])
        let actions = events.compactMap { event -> StylusEvent? in
            if case .sideButtonAction = event { event } else { nil }
        }
        #expect(actions == [.sideButtonAction(.undo, button: .side1, timestamp: ms(97))])
        // Within a sample: the sample, then its change, then its action.
        #expect(events[2...4] == [
            .sample(StylusSample(deltaMicroseconds: 1000, rawPressure: 100, buttons: [.tipContact, .sideButton1]), timestamp: ms(97)),
            .buttonsChanged(from: .tipContact, to: [.tipContact, .sideButton1], timestamp: ms(97)),
            .sideButtonAction(.undo, button: .side1, timestamp: ms(97)),
        ])
        #expect(decoder.counters.sideButtonActions == 1)
        #expect(decoder.buttons == .sideButton2)

        // The map can change between batches; a press already held is not a new press.
        decoder.buttonMap = StylusButtonMap(side1: .save, side2: .redo)
        var later: [StylusEvent] = []
        try withBuffer(batch(1, [1000, 1000], buttons: [.sideButton2, [.sideButton1, .sideButton2]])) { (raw) throws(StylusDecodingError) in
            try decoder.decode(raw, receivedAt: ms(102)) { later.append($0) }
        }
        #expect(later.last == .sideButtonAction(.save, button: .side1, timestamp: ms(102)))
        #expect(decoder.counters.sideButtonActions == 2)
    }

    @Test func aNewConnectionForgetsButtonsAndTime() throws {
        var decoder = StylusSampleDecoder()
        _ = try timestamps(&decoder, batch(10, [1000], buttons: [.sideButton1]), at: ms(500))
        decoder.connectionRestarted()
        #expect(decoder.buttons == [])
        #expect(decoder.lastSampleTime == nil)
        #expect(try timestamps(&decoder, batch(0, [1000]), at: ms(400)) == [ms(400)])
        #expect(decoder.counters.outOfOrderBatches == 0)
    }

    @Test func decodesIntoACallerSinkWithoutCollectingSamples() throws {
        var encoder = StylusBatchEncoder(includesPositions: true)
        let samples = (0..<12).map {
            StylusSample(deltaMicroseconds: 1000, rawPressure: UInt16($0), buttons: .tipContact,
                         position: StylusPosition(x: UInt16($0) * 10, y: 5))
        }
        let bytes = try encoder.encode(samples)
        var decoder = StylusSampleDecoder()
        var pressure = 0
        var x = 0
        var count = 0
        let delivered = try withBuffer(bytes) { (raw) throws(StylusDecodingError) in
            try decoder.decode(raw, receivedAt: ms(50)) { event in
                guard case .sample(let sample, _) = event else { return }
                count += 1
                pressure += Int(sample.rawPressure)
                x += Int(sample.position?.x ?? 0)
            }
        }
        #expect(delivered == 12)
        #expect(count == 12)
        #expect(pressure == 66)
        #expect(x == 660)
    }
}
