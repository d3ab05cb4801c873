import Foundation
import StrobeHCI
import Testing

import StrobeCapture

@Suite(.serialized) struct CaptureSummaryTests {
    @Test(arguments: ["pixel8_pongbot-robot_fitbit-inspire3.btsnoop", "s24ultra_dott-display_spen_galaxy-ring.btsnoop"])
    func countsMatchTShark(_ name: String) async throws {
        let path = Fixtures.capturePath(name)
        let summary = try CaptureSummary(path: path)
        let frames = try await TShark.fields(path, ["frame.time_epoch", "hci_h4.type", "hci_h4.direction"])
        #expect(summary.datalink == CaptureSummary.Datalink(number: 1002, name: "HCI UART (H4)"))
        #expect(summary.records == frames.count)
        #expect(summary.firstTimestamp?.unixMicroseconds == frames.first.flatMap { TShark.microseconds($0[0]) })
        #expect(summary.lastTimestamp?.unixMicroseconds == frames.last.flatMap { TShark.microseconds($0[0]) })
        for type in HCIPacketType.allCases {
            let expected = frames.filter { TShark.hex($0[1]) == UInt32(type.rawValue) }.count
            #expect(summary.packetTypes[type] == expected, "\(type)")
        }
        #expect(summary.packetTypes.nonHCI == 0)
        #expect(summary.directions.controllerToHost == frames.filter { TShark.hex($0[2]) == 1 }.count)
        #expect(summary.directions.hostToController == frames.filter { TShark.hex($0[2]) == 0 }.count)
        #expect(summary.truncatedRecords == 0)
    }

    @Test func encodesTheAgreedKeys() throws {
        let summary = try CaptureSummary(path: Fixtures.capturePath("revcar-toy_att-only.btsnoop"))
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(summary)) as? [String: Any]
        let object = try #require(json)
        for key in ["datalink", "records", "firstTimestamp", "lastTimestamp", "packetTypes", "directions"] {
            #expect(object[key] != nil, "key \(key)")
        }
        #expect(object["records"] as? Int == summary.records)
        let datalink = try #require(object["datalink"] as? [String: Any])
        #expect(datalink["number"] as? Int == 1002)
        let first = try #require(object["firstTimestamp"] as? [String: Any])
        #expect((first["unixMicroseconds"] as? NSNumber)?.int64Value == summary.firstTimestamp?.unixMicroseconds)
        #expect(first["iso8601"] as? String == summary.firstTimestamp?.iso8601)
        let types = try #require(object["packetTypes"] as? [String: Int])
        #expect(Set(types.keys) == ["command", "acl", "sco", "event", "iso", "nonHCI"])
        #expect(types["acl"] == summary.packetTypes.acl)
    }

    @Test func emptyCaptureEncodesNullTimestamps() throws {
        let summary = try CaptureSummary(path: Fixtures.capturePath("edgecase_header-only_0-records.cfa"))
        let data = try JSONEncoder().encode(summary)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["firstTimestamp"] is NSNull)
        #expect(object["lastTimestamp"] is NSNull)
        #expect(object["records"] as? Int == 0)
        #expect(!summary.text.contains("first:"))
        #expect(summary.text.contains("records:    0"))
    }

    @Test func textNamesDatalinkCountsAndTimes() throws {
        let summary = try CaptureSummary(path: Fixtures.capturePath("revcar-toy_att-only.btsnoop"))
        let first = try #require(summary.firstTimestamp)
        let text = summary.text
        #expect(text.contains("1002 (HCI UART (H4))"))
        #expect(text.contains("records:    \(summary.records)"))
        #expect(text.contains(first.iso8601))
        #expect(text.contains("acl \(summary.packetTypes.acl)"))
    }

    @Test func monitorCaptureCountsNonHCIRecordsApart() throws {
        let path = try Fixtures.scratchPath("monitor.btsnoop")
        defer { Fixtures.remove(path) }
        let writer = try BtsnoopWriter(path: path, datalink: .linuxMonitor)
        let address = try #require(BluetoothAddress("00:11:22:33:44:55"))
        try writer.writeNewIndex(adapterIndex: 0, address: address, name: "hci0", at: BtsnoopTimestamp(unixMicroseconds: 5))
        try writer.write(.command, direction: .hostToController, payload: [0x03, 0x0C, 0x00], at: BtsnoopTimestamp(unixMicroseconds: 6))
        try writer.write(.event, direction: .controllerToHost, payload: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], at: BtsnoopTimestamp(unixMicroseconds: 7))
        try writer.close()
        let summary = try CaptureSummary(path: path)
        #expect(summary.datalink.number == 2001)
        #expect(summary.records == 3)
        #expect(summary.packetTypes.nonHCI == 1)
        #expect(summary.packetTypes.command == 1)
        #expect(summary.packetTypes.event == 1)
        #expect(summary.directions.none == 1)
        #expect(summary.firstTimestamp?.unixMicroseconds == 5)
        #expect(summary.lastTimestamp?.unixMicroseconds == 7)
        #expect(summary.firstTimestamp?.iso8601 == "1970-01-01T00:00:00.000005Z")
    }

    @Test func partialSummaryBeforeAnError() throws {
        // What `capture info` can show for a damaged file: the records before the damage.
        var bytes = try Fixtures.captureBytes("revcar-toy_att-only.btsnoop")
        bytes.removeLast(3)
        let reader = try BtsnoopReader(bytes: bytes)
        var summary = CaptureSummary(datalink: reader.datalink, version: reader.version)
        #expect(throws: BtsnoopError.self) {
            while let record = try reader.next() { summary.add(record) }
        }
        let full = try CaptureSummary(path: Fixtures.capturePath("revcar-toy_att-only.btsnoop"))
        #expect(summary.records == full.records - 1)
    }
}

struct BtsnoopTimestampTests {
    @Test func unixEpochConversion() {
        // BlueZ writes (seconds since 2000 in µs) + 0x00E03AB44A676000; both must agree.
        let y2k = BtsnoopTimestamp(rawValue: 0x00E0_3AB4_4A67_6000)
        #expect(y2k.unixMicroseconds == 946_684_800_000_000)
        #expect(y2k.iso8601 == "2000-01-01T00:00:00.000000Z")
        #expect(BtsnoopTimestamp(unixMicroseconds: 0).rawValue == 0x00DC_DDB3_0F2F_8000)
        #expect(BtsnoopTimestamp(unixMicroseconds: 0).iso8601 == "1970-01-01T00:00:00.000000Z")
        #expect(BtsnoopTimestamp(unixMicroseconds: -1).iso8601 == "1969-12-31T23:59:59.999999Z")
    }

    /// Against Foundation's calendar across leap years and centuries (1600 on: Foundation's
    /// calendar is Julian before 1582).
    @Test func matchesFoundationCalendar() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        var generator = SplitMix64(seed: 7)
        let lower: Int64 = -11_676_096_000  // 1600-01-01
        let upper: Int64 = 253_402_300_799  // 9999-12-31T23:59:59
        var seconds: [Int64] = [951_782_400, 951_868_800, -2_203_891_200, 4_107_542_400]  // around 2000-02-29, 1900-03-01, 2100-03-01
        for _ in 0..<2000 { seconds.append(lower + Int64(generator.next() % UInt64(upper - lower))) }
        for second in seconds {
            let micros = Int64(generator.next() % 1_000_000)
            let ours = BtsnoopTimestamp(unixMicroseconds: second * 1_000_000 + micros).iso8601
            let fraction = String(micros)
            let expected = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(second)))
                + "." + String(repeating: "0", count: 6 - fraction.count) + fraction + "Z"
            #expect(ours == expected)
        }
    }

    @Test func extremeValuesFormatWithoutTrapping() {
        for raw in [Int64.min, Int64.max, -1, 1] {
            let timestamp = BtsnoopTimestamp(rawValue: raw)
            #expect(timestamp.iso8601.hasSuffix("Z"))
            _ = timestamp.unixMicroseconds
        }
        #expect(BtsnoopTimestamp(rawValue: Int64.min).unixMicroseconds == Int64.min)
        #expect(BtsnoopTimestamp(unixMicroseconds: Int64.max).rawValue == Int64.max)
    }

    @Test func nowIsTheWallClock() {
        let before = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let now = BtsnoopTimestamp.now().unixMicroseconds
        let after = Int64(Date().timeIntervalSince1970 * 1_000_000)
        #expect(now >= before - 1 && now <= after + 1)
    }
}
