#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StrobeHCI
import Testing

import StrobeCapture

/// Files written by `BtsnoopWriter`, read back by our reader and by tshark.
@Suite(.serialized) struct BtsnoopWriterTests {
    struct Packet {
        var type: HCIPacketType
        var direction: BtsnoopDirection
        var payload: [UInt8]
    }

    static let start: Int64 = 1_700_000_000_123_456

    /// Every packet type both ways, with lengths from empty to a full LE ACL fragment and more.
    static func packets(includeSCOAndISO: Bool = true, includeOddControl: Bool = false) -> [Packet] {
        var list: [Packet] = [
            Packet(type: .command, direction: .hostToController, payload: [0x03, 0x0C, 0x00]),
            Packet(type: .event, direction: .controllerToHost, payload: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
            Packet(
                type: .acl, direction: .hostToController,
                payload: [0x40, 0x00, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]),
            Packet(
                type: .acl, direction: .controllerToHost,
                payload: [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0B, 0x41, 0x42]),
            Packet(type: .acl, direction: .controllerToHost, payload: [0x40, 0x20, 0xFB, 0x00] + (0..<251).map { UInt8($0 & 0xFF) }),
            Packet(type: .acl, direction: .hostToController, payload: [0x40, 0x00, 0xE8, 0x03] + [UInt8](repeating: 0x5A, count: 1000)),
        ]
        if includeSCOAndISO {
            list += [
                Packet(type: .sco, direction: .hostToController, payload: [0x01, 0x00, 0x03, 1, 2, 3]),
                Packet(type: .sco, direction: .controllerToHost, payload: [0x01, 0x00, 0x03, 4, 5, 6]),
                Packet(type: .iso, direction: .hostToController, payload: [0x60, 0x00, 0x04, 0x00, 1, 2, 3, 4]),
                Packet(type: .iso, direction: .controllerToHost, payload: [0x60, 0x20, 0x04, 0x00, 5, 6, 7, 8]),
            ]
        }
        return list
    }

    static func write(_ packets: [Packet], to writer: BtsnoopWriter, adapterIndex: UInt16 = 0) throws {
        for (i, packet) in packets.enumerated() {
            try writer.write(
                packet.type, direction: packet.direction, payload: packet.payload,
                at: BtsnoopTimestamp(unixMicroseconds: start + Int64(i) * 1500), adapterIndex: adapterIndex)
        }
    }

    @Test func h4RoundTrip() async throws {
        let path = try Fixtures.scratchPath("h4.btsnoop")
        defer { Fixtures.remove(path) }
        let packets = Self.packets()
        let writer = try BtsnoopWriter(path: path, datalink: .h4)
        try Self.write(packets, to: writer)
        try writer.close()
        #expect(writer.recordsWritten == packets.count)

        let reader = try BtsnoopReader(path: path)
        #expect(reader.datalink == .h4)
        let records = try readAll(reader)
        #expect(records.count == packets.count)
        for (i, (record, packet)) in zip(records, packets).enumerated() {
            #expect(record.kind == .hci(packet.type))
            #expect(record.direction == packet.direction)
            #expect(record.payload == packet.payload)
            #expect(record.unixMicroseconds == Self.start + Int64(i) * 1500)
            let received: UInt32 = packet.direction == .controllerToHost ? 1 : 0
            let control: UInt32 = packet.type == .command || packet.type == .event ? 2 : 0
            #expect(record.flags == received | control)
        }

        let frames = try await TShark.fields(path, ["frame.time_epoch", "hci_h4.type", "hci_h4.direction", "frame.protocols"])
        #expect(frames.count == packets.count)
        for (i, (frame, packet)) in zip(frames, packets).enumerated() {
            #expect(TShark.protocols(frame[3]).contains(TShark.layer(for: packet.type)), "\(frame[3])")
            #expect(TShark.microseconds(frame[0]) == Self.start + Int64(i) * 1500)
            #expect(TShark.hex(frame[1]) == UInt32(packet.type.rawValue))
            #expect(TShark.hex(frame[2]) == (packet.direction == .controllerToHost ? 1 : 0))
        }
    }

    @Test func monitorRoundTrip() async throws {
        let path = try Fixtures.scratchPath("monitor.btsnoop")
        defer { Fixtures.remove(path) }
        let packets = Self.packets()
        let writer = try BtsnoopWriter(path: path, datalink: .linuxMonitor)
        let address = try #require(BluetoothAddress("00:1B:DC:F2:1C:47"))
        try writer.writeNewIndex(
            adapterIndex: 1, address: address, name: "hci1", bus: 1,
            at: BtsnoopTimestamp(unixMicroseconds: Self.start - 10))
        try Self.write(packets, to: writer, adapterIndex: 1)
        let note = Array("replayed\0".utf8)
        try note.withUnsafeBytes { view in
            try writer.writeMonitorRecord(
                .systemNote, adapterIndex: 0xFFFF, payload: view, at: BtsnoopTimestamp(unixMicroseconds: Self.start + 99_000))
        }
        try writer.close()

        let reader = try BtsnoopReader(path: path)
        #expect(reader.datalink == .linuxMonitor)
        var records: [(opcode: MonitorOpcode?, adapter: UInt16?, copy: RecordCopy)] = []
        while let record = try reader.next() {
            records.append((record.monitorOpcode, record.adapterIndex, RecordCopy(record)))
        }
        #expect(reader.nonHCIRecords == 2)
        #expect(records.count == packets.count + 2)
        #expect(records.first?.opcode == .newIndex)
        #expect(records.first?.copy.kind == .nonHCI)
        #expect(records.first?.copy.direction == nil)
        #expect(records.last?.opcode == .systemNote)
        #expect(records.last?.adapter == 0xFFFF)
        for (record, packet) in zip(records.dropFirst(), packets) {
            #expect(record.copy.kind == .hci(packet.type))
            #expect(record.copy.direction == packet.direction)
            #expect(record.copy.payload == packet.payload)
            #expect(record.adapter == 1)
            #expect(record.opcode == MonitorOpcode(carrying: packet.type, packet.direction))
        }

        let frames = try await TShark.fields(
            path, [
                "hci_mon.opcode", "hci_mon.adapter_id", "hci_mon.adapter_name", "hci_mon.bd_addr", "frame.time_epoch",
                "frame.protocols",
            ])
        #expect(frames.count == records.count)
        for (frame, record) in zip(frames, records) {
            // tshark 4.0's monitor dissector knows opcodes up to 17: ISO (18, 19) is checked by
            // opcode only.
            if case .hci(let type) = record.copy.kind, type != .iso {
                #expect(TShark.protocols(frame[5]).contains(TShark.layer(for: type)), "\(frame[5])")
            }
            #expect(TShark.hex(frame[0]) == record.opcode.map { UInt32($0.rawValue) })
            #expect(TShark.hex(frame[1]) == record.adapter.map(UInt32.init))
            #expect(TShark.microseconds(frame[4]) == record.copy.unixMicroseconds)
        }
        #expect(frames.first?[2] == "hci1")
        #expect(frames.first?[3].lowercased() == "00:1b:dc:f2:1c:47")
    }

    @Test func h1RoundTrip() async throws {
        let path = try Fixtures.scratchPath("h1.btsnoop")
        defer { Fixtures.remove(path) }
        let packets = Self.packets(includeSCOAndISO: false)
        let writer = try BtsnoopWriter(path: path, datalink: .h1)
        try Self.write(packets, to: writer)
        #expect(throws: BtsnoopError.unrepresentable(type: .sco, direction: .hostToController, datalink: .h1)) {
            try writer.write(.sco, direction: .hostToController, payload: [1, 0, 0], at: BtsnoopTimestamp(rawValue: 0))
        }
        #expect(throws: BtsnoopError.unrepresentable(type: .event, direction: .hostToController, datalink: .h1)) {
            try writer.write(.event, direction: .hostToController, payload: [1, 0], at: BtsnoopTimestamp(rawValue: 0))
        }
        try writer.close()

        let records = try readAll(try BtsnoopReader(path: path))
        #expect(records.map(\.kind) == packets.map { .hci($0.type) })
        #expect(records.map(\.direction) == packets.map(\.direction))
        #expect(records.map(\.payload) == packets.map(\.payload))

        let frames = try await TShark.fields(path, ["frame.protocols"])
        #expect(frames.count == packets.count)
        for (frame, packet) in zip(frames, packets) {
            #expect(TShark.protocols(frame[0]).contains(TShark.layer(for: packet.type)), "\(frame[0])")
        }
    }

    @Test func monitorCannotHoldACommandFromTheController() throws {
        let path = try Fixtures.scratchPath("monitor.btsnoop")
        defer { Fixtures.remove(path) }
        let writer = try BtsnoopWriter(path: path, datalink: .linuxMonitor)
        #expect(throws: BtsnoopError.unrepresentable(type: .command, direction: .controllerToHost, datalink: .linuxMonitor)) {
            try writer.write(.command, direction: .controllerToHost, payload: [0x03, 0x0C, 0x00], at: BtsnoopTimestamp(rawValue: 0))
        }
        #expect(writer.recordsWritten == 0)
    }

    @Test func monitorRecordsNeedTheMonitorDatalink() throws {
        let path = try Fixtures.scratchPath("h4.btsnoop")
        defer { Fixtures.remove(path) }
        let writer = try BtsnoopWriter(path: path, datalink: .h4)
        #expect(throws: BtsnoopError.notMonitorFormat(.h4)) {
            try [UInt8]().withUnsafeBytes { view in
                try writer.writeMonitorRecord(.systemNote, adapterIndex: 0, payload: view, at: BtsnoopTimestamp(rawValue: 0))
            }
        }
    }

    @Test func packetsLargerThanARecordMayBeAreRefused() throws {
        let path = try Fixtures.scratchPath("h4.btsnoop")
        defer { Fixtures.remove(path) }
        let writer = try BtsnoopWriter(path: path)
        let huge = [UInt8](repeating: 0, count: BtsnoopFormat.maximumIncludedLength)
        #expect(throws: BtsnoopError.packetTooLarge(bytes: huge.count + 1, limit: BtsnoopFormat.maximumIncludedLength)) {
            try writer.write(.acl, direction: .hostToController, payload: huge, at: BtsnoopTimestamp(rawValue: 0))
        }
    }

    @Test func closedWriterRefusesToWrite() throws {
        let path = try Fixtures.scratchPath("h4.btsnoop")
        defer { Fixtures.remove(path) }
        let writer = try BtsnoopWriter(path: path)
        try writer.close()
        try writer.close()
        #expect(throws: BtsnoopError.closed) {
            try writer.write(.command, direction: .hostToController, payload: [0x03, 0x0C, 0x00], at: BtsnoopTimestamp(rawValue: 0))
        }
    }

    @Test func cannotCreateInAMissingDirectory() {
        #expect(throws: BtsnoopError.cannotOpen(path: "/nonexistent/dir/out.btsnoop", errno: ENOENT)) {
            try BtsnoopWriter(path: "/nonexistent/dir/out.btsnoop")
        }
    }

    @Test func bufferedWritesReachTheFileInOrder() async throws {
        // Far more than the staging buffer: records must cross many flushes intact.
        let path = try Fixtures.scratchPath("big.btsnoop")
        defer { Fixtures.remove(path) }
        let writer = try BtsnoopWriter(path: path)
        for i in 0..<300 {
            let payload = [0x40, 0x00, 0xE8, 0x03] + [UInt8](repeating: UInt8(i & 0xFF), count: 1000)
            try writer.write(.acl, direction: .hostToController, payload: payload, at: BtsnoopTimestamp(unixMicroseconds: Int64(i)))
        }
        try writer.close()
        let records = try readAll(try BtsnoopReader(path: path))
        #expect(records.count == 300)
        #expect(records.enumerated().allSatisfy { i, record in
            record.payload.count == 1004 && record.payload.last == UInt8(i & 0xFF) && record.unixMicroseconds == Int64(i)
        })
        #expect(try await TShark.fields(path, ["frame.number"]).count == 300)
    }
}
