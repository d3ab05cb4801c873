import Foundation
import StrobeHCI
import Testing

import StrobeCapture

/// Every ATT PDU of every capture, against tshark's decoding of the same file.
@Suite(.serialized) struct CaptureATTDecoderTests {
    static let notificationFilter = "btatt.opcode == 0x1b || btatt.opcode == 0x1d"

    static func decodeAll(_ path: String) throws -> [CaptureATTPDU] {
        let decoder = try CaptureATTDecoder(path: path)
        var pdus: [CaptureATTPDU] = []
        while let pdu = try decoder.next() { pdus.append(pdu) }
        return pdus
    }

    /// Frame number, connection handle and opcode of every ATT PDU, in order.
    @Test(arguments: Fixtures.captureNames())
    func everyATTPDUAgreesWithTShark(_ name: String) async throws {
        let path = Fixtures.capturePath(name)
        let ours = try Self.decodeAll(path).map { $0.tsv.split(separator: "\t", omittingEmptySubsequences: false).prefix(3).joined(separator: "\t") }
        let theirs = try await TShark.fields(path, ["frame.number", "bthci_acl.chandle", "btatt.opcode"], filter: "btatt")
            .map { $0.joined(separator: "\t") }
        #expect(ours.count == theirs.count, "\(name): ATT PDU count")
        let firstDifference = zip(ours, theirs).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(firstDifference == nil, "\(name): first row that differs: \(String(describing: firstDifference))")
    }

    /// Handle and value of every notification and indication: against tshark's `btatt.handle` and
    /// `btatt.value`, and against the ATT bytes tshark dissected (`btatt_raw`). Where tshark
    /// mistakes a notified value for a characteristic declaration (its own expert warning
    /// "Invalid usage of this characteristic with this opcode": it maps handles to characteristics
    /// across connections), its `btatt.handle` lists the handle first and the raw bytes decide.
    @Test(arguments: Fixtures.captureNames())
    func notificationsAndIndicationsAgreeWithTShark(_ name: String) async throws {
        let path = Fixtures.capturePath(name)
        let ours = try Self.decodeAll(path).filter { $0.handle != nil }
        let fields = try await TShark.fields(path, ["frame.number", "btatt.handle", "btatt.value"], filter: Self.notificationFilter)
        let raw = try await Self.rawATT(path)
        #expect(ours.count == fields.count, "\(name): notifications and indications")
        #expect(raw.count == fields.count)
        var reinterpreted = 0
        for ((pdu, field), bytes) in zip(zip(ours, fields), raw) {
            let handleText = String(format: "0x%04x", pdu.handle?.rawValue ?? 0)
            let valueText = (pdu.value ?? []).map { String(format: "%02x", $0) }.joined()
            #expect(String(pdu.frame) == field[0])
            #expect(Array(bytes.dropFirst(3)) == pdu.value, "\(name) frame \(pdu.frame): value against btatt_raw")
            #expect(bytes.count >= 3 && UInt16(bytes[1]) | UInt16(bytes[2]) << 8 == pdu.handle?.rawValue)
            if field[1] == handleText {
                #expect(field.count > 2 ? field[2] == valueText : valueText.isEmpty, "\(name) frame \(pdu.frame): btatt.value")
            } else {
                #expect(field[1].hasPrefix(handleText + ","), "\(name) frame \(pdu.frame): btatt.handle \(field[1])")
                reinterpreted += 1
            }
        }
        // Only the capture with two devices on two connections trips tshark's inference.
        #expect(reinterpreted == (name.hasPrefix("pixel8_") ? 40 : 0), "\(name): rows tshark decodes as declarations")
    }

    /// tshark's `btatt_raw` (the ATT PDU bytes it dissected) of each notification and indication.
    static func rawATT(_ path: String) async throws -> [[UInt8]] {
        let output = try await TShark.run(["-n", "-r", path, "-Y", notificationFilter, "-T", "json", "-x", "-j", "btatt"])
        guard let packets = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] else { return [] }
        return packets.compactMap { packet in
            let layers = (packet["_source"] as? [String: Any])?["layers"] as? [String: Any]
            guard let raw = (layers?["btatt_raw"] as? [Any])?.first as? String else { return nil }
            return stride(from: 0, to: raw.count, by: 2).compactMap { offset in
                let start = raw.index(raw.startIndex, offsetBy: offset)
                return UInt8(raw[start..<raw.index(start, offsetBy: 2)], radix: 16)
            }
        }
    }

    // MARK: Hostile input

    /// A capture of ACL packets built by hand: `packets` are ACL payloads (header included).
    static func capture(_ packets: [[UInt8]]) throws -> [UInt8] {
        let path = try Fixtures.scratchPath("acl.btsnoop")
        defer { Fixtures.remove(path) }
        let writer = try BtsnoopWriter(path: path, datalink: .h4, flushEachRecord: false)
        for packet in packets {
            try writer.write(.acl, direction: .controllerToHost, payload: packet, at: BtsnoopTimestamp(unixMicroseconds: 0))
        }
        try writer.close()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func acl(handle: UInt16, boundary: UInt8, _ data: [UInt8]) -> [UInt8] {
        let flags = handle | UInt16(boundary) << 12
        return [UInt8(flags & 0xFF), UInt8(flags >> 8), UInt8(data.count & 0xFF), UInt8(data.count >> 8)] + data
    }

    @Test func fragmentedNotificationIsReportedAtItsLastFragment() throws {
        // L2CAP length 7, CID 4: notification of handle 0x0012 with value 01 02 03 04, in 3 pieces.
        let pdu: [UInt8] = [0x07, 0x00, 0x04, 0x00, 0x1b, 0x12, 0x00, 0x01, 0x02, 0x03, 0x04]
        let bytes = try Self.capture([
            Self.acl(handle: 0x40, boundary: 0b10, Array(pdu[0..<5])),
            Self.acl(handle: 0x41, boundary: 0b10, [0x05, 0x00, 0x04, 0x00, 0x52, 0x03, 0x00, 0xAA, 0xBB]),
            Self.acl(handle: 0x40, boundary: 0b01, Array(pdu[5..<8])),
            Self.acl(handle: 0x40, boundary: 0b01, Array(pdu[8...])),
        ])
        let decoder = try CaptureATTDecoder(bytes: bytes)
        let first = try #require(try decoder.next())
        #expect(first.frame == 2 && first.connectionHandle == 0x41 && first.opcode == 0x52 && first.handle == nil)
        let second = try #require(try decoder.next())
        #expect(second.frame == 4 && second.connectionHandle == 0x40 && second.opcode == 0x1b)
        #expect(second.handle == 0x0012 && second.value == [1, 2, 3, 4])
        #expect(second.tsv == "4\t0x0040\t0x1b\t0x0012\t01020304")
        #expect(try decoder.next() == nil)
    }

    @Test func lostStartFragmentsAndHostileLengthsAreCountedNotTrapped() throws {
        let bytes = try Self.capture([
            Self.acl(handle: 0x40, boundary: 0b01, [0x01, 0x02]),                // continuation without a start
            [0x40, 0x20, 0xFF, 0xFF, 0x00],                                      // ACL length beyond the packet
            Self.acl(handle: 0x40, boundary: 0b10, [0xFF, 0xFF, 0x04, 0x00, 0x1b]), // L2CAP length 65535, never completed
            Self.acl(handle: 0x40, boundary: 0b10, [0x01, 0x00, 0x04, 0x00, 0x1b]), // a new start abandons it
            [0x40],                                                              // shorter than an ACL header
        ])
        let decoder = try CaptureATTDecoder(bytes: bytes)
        let only = try #require(try decoder.next())
        #expect(only.frame == 4 && only.opcode == 0x1b && only.handle == nil, "a notification too short for a handle")
        #expect(try decoder.next() == nil)
        #expect(decoder.counters.malformed >= 3)
        #expect(decoder.counters.attPDUs == 1)
    }

    @Test func truncatedCaptureIsATypedError() throws {
        var bytes = try Self.capture([Self.acl(handle: 0x40, boundary: 0b10, [0x03, 0x00, 0x04, 0x00, 0x1b, 0x01, 0x00])])
        bytes.removeLast(3)
        let decoder = try CaptureATTDecoder(bytes: bytes)
        #expect(throws: BtsnoopError.self) { _ = try decoder.next() }
    }
}
