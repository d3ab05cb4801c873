#if canImport(Glibc)
import Glibc
#endif
import StrobeHCI

/// Writes a btsnoop file (datalink 1001, 1002 or 2001) that Wireshark and `btmon -r` read.
/// Records are staged in one reusable buffer and written when it fills, on `flush()`, on
/// `close()`, or after every record when `flushEachRecord` is set (a crash then loses nothing).
///
/// Not thread-safe: guard a shared writer with a lock (as `BtsnoopRecorder` does).
package final class BtsnoopWriter {
    /// The datalink written in the file header; it decides how `write` frames each packet.
    package let datalink: BtsnoopDatalink
    /// Whether each record is written to the file as soon as it is added, rather than when 64 KiB
    /// are staged, on `flush()` or on `close()`.
    package let flushEachRecord: Bool
    /// Records added so far, whether already written to the file or still staged.
    package private(set) var recordsWritten = 0

    private var fd: Int32
    private var pending: [UInt8] = []
    private static let flushThreshold = 64 * 1024

    /// Creates (or truncates) `path` and writes the file header.
    package init(path: String, datalink: BtsnoopDatalink = .h4, flushEachRecord: Bool = false) throws(BtsnoopError) {
        self.datalink = datalink
        self.flushEachRecord = flushEachRecord
        fd = try FileIO.create(path)
        pending.reserveCapacity(Self.flushThreshold + BtsnoopFormat.recordHeaderSize + BtsnoopFormat.maximumIncludedLength)
        pending.append(contentsOf: BtsnoopFormat.magic)
        appendBigEndian(BtsnoopFormat.version)
        appendBigEndian(datalink.rawValue)
        do throws(BtsnoopError) {
            try flush()
        } catch {
            _ = Glibc.close(fd)
            fd = -1
            throw error
        }
    }

    deinit {
        try? close()
    }

    /// One HCI packet (`payload` without the H4 indicator), framed for this file's datalink:
    /// H4 flags are 0 sent data, 1 received data, 2 sent command, 3 received event; monitor
    /// flags are (adapterIndex << 16) | opcode.
    package func write(
        _ type: HCIPacketType, direction: BtsnoopDirection, payload: UnsafeRawBufferPointer,
        at timestamp: BtsnoopTimestamp, adapterIndex: UInt16 = 0, drops: UInt32 = 0
    ) throws(BtsnoopError) {
        let received = direction == .controllerToHost
        let control = type == .command || type == .event
        switch datalink {
        case .h4:
            let flags: UInt32 = (received ? 1 : 0) | (control ? 2 : 0)
            try append(flags: flags, drops: drops, timestamp: timestamp, indicator: type.rawValue, payload: payload)
        case .h1:
            // H1 knows only command/event versus (ACL) data, and cannot say which way a command went.
            let representable =
                type == .acl || (type == .command && !received) || (type == .event && received)
            guard representable else {
                throw .unrepresentable(type: type, direction: direction, datalink: datalink)
            }
            let flags: UInt32 = (received ? 1 : 0) | (control ? 2 : 0)
            try append(flags: flags, drops: drops, timestamp: timestamp, indicator: nil, payload: payload)
        case .linuxMonitor:
            guard let opcode = MonitorOpcode(carrying: type, direction) else {
                throw .unrepresentable(type: type, direction: direction, datalink: datalink)
            }
            let flags = UInt32(adapterIndex) << 16 | UInt32(opcode.rawValue)
            try append(flags: flags, drops: drops, timestamp: timestamp, indicator: nil, payload: payload)
        }
    }

    /// Convenience for packets held in an array.
    package func write(
        _ type: HCIPacketType, direction: BtsnoopDirection, payload: [UInt8],
        at timestamp: BtsnoopTimestamp, adapterIndex: UInt16 = 0
    ) throws(BtsnoopError) {
        try withBytes(of: payload) { (view) throws(BtsnoopError) in
            try write(type, direction: direction, payload: view, at: timestamp, adapterIndex: adapterIndex)
        }
    }

    /// A monitor record of any opcode (datalink 2001 only), such as a system note.
    package func writeMonitorRecord(
        _ opcode: MonitorOpcode, adapterIndex: UInt16, payload: UnsafeRawBufferPointer, at timestamp: BtsnoopTimestamp
    ) throws(BtsnoopError) {
        guard datalink == .linuxMonitor else { throw .notMonitorFormat(datalink) }
        let flags = UInt32(adapterIndex) << 16 | UInt32(opcode.rawValue)
        try append(flags: flags, drops: 0, timestamp: timestamp, indicator: nil, payload: payload)
    }

    /// The New Index record `btmon` writes first for each adapter: controller type (0 primary),
    /// bus (0 virtual, 1 USB, 3 UART, ...), address and an up-to-8-byte name such as "hci0".
    package func writeNewIndex(
        adapterIndex: UInt16, address: BluetoothAddress, name: String, controllerType: UInt8 = 0,
        bus: UInt8 = 0, at timestamp: BtsnoopTimestamp
    ) throws(BtsnoopError) {
        var body = ByteWriter(capacity: 16)
        body.write(controllerType)
        body.write(bus)
        body.write(address)
        let nameBytes = Array(name.utf8.prefix(7))
        body.write(contentsOf: nameBytes)
        body.write(contentsOf: [UInt8](repeating: 0, count: 8 - nameBytes.count))
        try withBytes(of: body.bytes) { (view) throws(BtsnoopError) in
            try writeMonitorRecord(.newIndex, adapterIndex: adapterIndex, payload: view, at: timestamp)
        }
    }

    /// A record with the given flags and bytes, unchanged (for datalink-specific needs, such
    /// as an H4 record whose first byte is not a packet type).
    package func writeRecord(
        flags: UInt32, drops: UInt32 = 0, data: UnsafeRawBufferPointer, at timestamp: BtsnoopTimestamp
    ) throws(BtsnoopError) {
        try append(flags: flags, drops: drops, timestamp: timestamp, indicator: nil, payload: data)
    }

    /// Writes out staged records.
    package func flush() throws(BtsnoopError) {
        guard fd >= 0 else { throw .closed }
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        try withBytes(of: pending) { (bytes) throws(BtsnoopError) in try FileIO.writeAll(fd, bytes) }
    }

    /// Flushes and closes the file. Closing twice is harmless.
    package func close() throws(BtsnoopError) {
        guard fd >= 0 else { return }
        defer {
            _ = Glibc.close(fd)
            fd = -1
        }
        try flush()
    }

    private func append(
        flags: UInt32, drops: UInt32, timestamp: BtsnoopTimestamp, indicator: UInt8?, payload: UnsafeRawBufferPointer
    ) throws(BtsnoopError) {
        guard fd >= 0 else { throw .closed }
        let length = payload.count + (indicator == nil ? 0 : 1)
        guard length <= BtsnoopFormat.maximumIncludedLength else {
            throw .packetTooLarge(bytes: length, limit: BtsnoopFormat.maximumIncludedLength)
        }
        appendBigEndian(UInt32(length))  // original length
        appendBigEndian(UInt32(length))  // included length
        appendBigEndian(flags)
        appendBigEndian(drops)
        appendBigEndian(timestamp.rawValue)
        if let indicator { pending.append(indicator) }
        pending.append(contentsOf: payload)
        recordsWritten += 1
        if flushEachRecord || pending.count >= Self.flushThreshold { try flush() }
    }

    private func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { pending.append(contentsOf: $0) }
    }
}
