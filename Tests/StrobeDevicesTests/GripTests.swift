import Testing
import StrobeDevices

@Suite struct GripEventTests {
    @Test func everyKnownCodeRoundTrips() {
        #expect(GripEvent.known.count == 14)
        #expect(Set(GripEvent.known.map(\.code)).count == 14)
        for event in GripEvent.known {
            #expect(GripEvent(code: event.code) == event)
        }
        #expect(GripEvent(code: 0x02) == .shutterButtonDown)
        #expect(GripEvent(code: 0x34) == .zoomLeverNeutral)
        #expect(GripEvent(code: 0x7E) == .unknown(0x7E))
        #expect(GripEvent.unknown(0x7E).code == 0x7E)
    }

    @Test func recordsEncodeLittleEndian() {
        let bytes = GripEventRecord.encode([
            GripEventRecord(sequence: 0x0102, event: .shutterButtonHalfDown),
            GripEventRecord(sequence: 0x0103, event: .fnButtonLongPress),
        ])
        #expect(bytes == [0x02, 0x01, 0x01, 0x03, 0x01, 0x21])
    }

    @Test func oneNotificationCarriesSeveralRecords() throws {
        var decoder = GripEventDecoder()
        var records: [GripEventRecord] = []
        let bytes: [UInt8] = [0x10, 0x00, 0x01, 0x11, 0x00, 0x02, 0x12, 0x00, 0x03]
        let count = try withBuffer(bytes) { (raw) throws(GripDecodingError) in try decoder.decode(raw) { records.append($0) } }
        #expect(count == 3)
        #expect(records == [
            GripEventRecord(sequence: 0x10, event: .shutterButtonHalfDown),
            GripEventRecord(sequence: 0x11, event: .shutterButtonDown),
            GripEventRecord(sequence: 0x12, event: .shutterButtonReleased),
        ])
        #expect(decoder.counters.records == 3)
        #expect(decoder.counters.lostRecords == 0)
    }

    @Test func unknownCodesAreDeliveredAndCounted() throws {
        var decoder = GripEventDecoder()
        var events: [GripEvent] = []
        try withBuffer([0, 0, 0x99]) { (raw) throws(GripDecodingError) in try decoder.decode(raw) { events.append($0.event) } }
        #expect(events == [.unknown(0x99)])
        #expect(decoder.counters.unknownEvents == 1)
    }

    @Test func sequenceGapsCountLostRecordsAcrossTheWrap() throws {
        var decoder = GripEventDecoder()
        func feed(_ sequences: [UInt16]) throws(GripDecodingError) {
            let bytes = GripEventRecord.encode(sequences.map { GripEventRecord(sequence: $0, event: .dialButtonCW) })
            try withBuffer(bytes) { (raw) throws(GripDecodingError) in try decoder.decode(raw) { _ in } }
        }
        try feed([65534, 65535, 0])
        #expect(decoder.counters.lostRecords == 0)
        try feed([3])
        #expect(decoder.counters.lostRecords == 2)
        try feed([3])
        #expect(decoder.counters.outOfOrderRecords == 1)
        try feed([4, 65533])
        #expect(decoder.counters.lostRecords == 2)
        #expect(decoder.counters.outOfOrderRecords == 2)
        decoder.connectionRestarted()
        try feed([100])
        #expect(decoder.counters.lostRecords == 2)
        #expect(decoder.counters.notifications == 5)
    }

    @Test(arguments: [
        ([UInt8](), GripDecodingError.empty),
        ([1, 0], .partialRecord(length: 2)),
        ([1, 0, 2, 2], .partialRecord(length: 4)),
        ([1, 0, 2, 2, 0, 3, 3], .partialRecord(length: 7)),
    ])
    func malformedNotificationsDeliverNothingAndAreCounted(bytes: [UInt8], expected: GripDecodingError) {
        var decoder = GripEventDecoder()
        var delivered = 0
        let error = thrownError { () throws(GripDecodingError) in
            try withBuffer(bytes) { (raw) throws(GripDecodingError) in try decoder.decode(raw) { _ in delivered += 1 } }
        }
        #expect(error == expected)
        #expect(delivered == 0)
        #expect(decoder.counters.malformedNotifications == 1)
        #expect(decoder.lastError == expected)
    }
}

@Suite struct FirmwareVersionTests {
    @Test func parsingAndOrdering() throws {
        let v140 = try #require(FirmwareVersion("1.4.0"))
        #expect(v140.components == [1, 4, 0])
        #expect(v140 > GripFirmwareRequirement.defaultMinimum)
        #expect(FirmwareVersion("1.2") == FirmwareVersion("1.2.0"))
        #expect(try #require(FirmwareVersion("1.10.0")) > #require(FirmwareVersion("1.9.7")))
        #expect(try #require(FirmwareVersion("v2")) > v140)
        #expect(FirmwareVersion("1.2").hashValue == FirmwareVersion("1.2.0.0").hashValue)
        #expect(v140.description == "1.4.0")
        for text in ["", "1..2", "1.2.", "a.b", "1.2.3-beta", "-1.0", "1.99999999999"] {
            #expect(FirmwareVersion(text) == nil, "\(text)")
        }
    }

    @Test func theCharacteristicValueIsTrimmed() throws {
        let bytes = Array("1.4.0".utf8) + [0, 0]
        #expect(try withBuffer(bytes) { (raw) throws(FirmwareVersionError) in try FirmwareVersion(decoding: raw) }
            == FirmwareVersion(major: 1, minor: 4, patch: 0))
        #expect(thrownError { () throws(FirmwareVersionError) in
            try withBuffer(Array("beta".utf8)) { (raw) throws(FirmwareVersionError) in try FirmwareVersion(decoding: raw) }
        } == .unparsable("beta"))
        #expect(thrownError { () throws(FirmwareVersionError) in
            try withBuffer([0xFF, 0xFE]) { (raw) throws(FirmwareVersionError) in try FirmwareVersion(decoding: raw) }
        } == .notUTF8(length: 2))
    }

    @Test func anOldGripIsRefusedNamingBothVersions() throws {
        let requirement = GripFirmwareRequirement()
        try requirement.check(FirmwareVersion(major: 1, minor: 4, patch: 0))
        try requirement.check(FirmwareVersion(major: 1, minor: 2, patch: 0))
        let error = thrownError { () throws(GripError) in
            try requirement.check(FirmwareVersion(major: 1, minor: 1, patch: 9))
        }
        #expect(error == .firmwareTooOld(
            found: FirmwareVersion(major: 1, minor: 1, patch: 9), minimum: FirmwareVersion(major: 1, minor: 2, patch: 0)))
        let text = try #require(error).description
        #expect(text.contains("1.1.9"))
        #expect(text.contains("1.2.0"))

        let stricter = GripFirmwareRequirement(minimum: FirmwareVersion(major: 1, minor: 5, patch: 0))
        let fromBytes = thrownError { () throws(GripError) in
            try withBuffer(Array("1.4.0".utf8)) { (raw) throws(GripError) in try stricter.check(revision: raw) }
        }
        #expect(fromBytes == .firmwareTooOld(
            found: FirmwareVersion(major: 1, minor: 4, patch: 0), minimum: FirmwareVersion(major: 1, minor: 5, patch: 0)))
    }
}

@Suite struct BatteryLevelTests {
    @Test(arguments: [UInt8(0), 42, 100])
    func validLevels(percent: UInt8) throws {
        let level = try withBuffer([percent]) { (raw) throws(BatteryLevelError) in try BatteryLevel(decoding: raw) }
        #expect(level.percent == percent)
        #expect(level.encoded == [percent])
    }

    @Test(arguments: [
        ([UInt8(101)], BatteryLevelError.outOfRange(101)),
        ([255], .outOfRange(255)),
        ([], .unexpectedLength(0)),
        ([50, 0], .unexpectedLength(2)),
    ])
    func invalidLevels(bytes: [UInt8], expected: BatteryLevelError) {
        #expect(thrownError { () throws(BatteryLevelError) in
            try withBuffer(bytes) { (raw) throws(BatteryLevelError) in try BatteryLevel(decoding: raw) }
        } == expected)
    }

    @Test func theMonitorKeepsTheLastGoodLevelAndCountsTheRest() {
        var monitor = BatteryLevelMonitor()
        _ = [UInt8(80)].withUnsafeBytes { monitor.update($0) }
        _ = [UInt8(180)].withUnsafeBytes { monitor.update($0) }
        #expect(monitor.level == BatteryLevel(percent: 80))
        #expect(monitor.lastError == .outOfRange(180))
        #expect(monitor.counters == {
            var counters = BatteryLevelMonitor.Counters()
            counters.readings = 2
            counters.malformed = 1
            return counters
        }())
    }
}

@Suite struct SequenceNumberTrackerTests {
    @Test func observations() {
        var tracker = SequenceNumberTracker()
        #expect(tracker.observe(10) == .first)
        #expect(tracker.observe(11) == .inOrder)
        #expect(tracker.observe(15) == .gap(lost: 3))
        #expect(tracker.observe(15) == .outOfOrder)
        #expect(tracker.observe(16) == .inOrder)
        // Half the number space ahead is taken as a restart, not 32 768 losses.
        #expect(tracker.observe(16 &+ 0x8001) == .outOfOrder)
        #expect(tracker.observe(16 &+ 0x8002) == .inOrder)
        #expect(tracker.lost == 3)
        #expect(tracker.outOfOrder == 2)
    }
}
