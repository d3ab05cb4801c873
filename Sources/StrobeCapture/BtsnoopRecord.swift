import StrobeHCI

/// What a record carries.
package enum BtsnoopRecordKind: Sendable, Hashable, CustomStringConvertible {
    /// An HCI packet of this type.
    case hci(HCIPacketType)
    /// Not an HCI packet: a Linux monitor record such as New Index or a system note, or an H4
    /// record that is empty or starts with a byte that is no H4 packet type.
    case nonHCI

    package var description: String {
        switch self {
        case .hci(let type): type.description
        case .nonHCI: "non-HCI"
        }
    }
}

/// One record of a capture, as a view into the reader's buffer. `data` and `payload` are valid
/// only until the reader's next call (`next()` or `close()`); copy what must outlive it.
public struct BtsnoopRecord {
    /// Position in the file, from 0.
    public var index: Int
    /// When the packet was captured: wall-clock time to the microsecond.
    public var timestamp: BtsnoopTimestamp
    /// The packet's length on the wire; larger than `data.count` when the capture cut it short.
    public var originalLength: UInt32
    /// The flags field exactly as stored.
    public var flags: UInt32
    /// The record's cumulative drops field: packets the capturing tool says it lost since the
    /// capture began (most tools write 0).
    public var cumulativeDrops: UInt32
    package var kind: BtsnoopRecordKind
    /// `nil` for records that are not HCI traffic in the monitor format.
    public var direction: BtsnoopDirection?
    /// The monitor record's adapter (hciN) and opcode; `nil` in other datalinks.
    public var adapterIndex: UInt16?
    package var monitorOpcode: MonitorOpcode?
    /// The record's included bytes, as stored.
    public var data: UnsafeRawBufferPointer
    /// The HCI packet without its H4 indicator (what `HCIPacketSink` receives); for non-HCI
    /// records, the same as `data`.
    public var payload: UnsafeRawBufferPointer

    /// The HCI packet type the record carries, or `nil` when it carries no HCI packet.
    public var packetType: HCIPacketType? {
        if case .hci(let type) = kind { type } else { nil }
    }

    /// The capture kept fewer bytes than the packet had.
    public var isTruncated: Bool { UInt32(data.count) < originalLength }
}

extension BtsnoopRecord {
    /// Decodes type and direction from the fields, following each datalink's rules.
    init(
        index: Int, datalink: BtsnoopDatalink, originalLength: UInt32, flags: UInt32, drops: UInt32,
        timestamp: Int64, data: UnsafeRawBufferPointer
    ) {
        self.index = index
        self.timestamp = BtsnoopTimestamp(rawValue: timestamp)
        self.originalLength = originalLength
        self.flags = flags
        self.cumulativeDrops = drops
        self.data = data
        adapterIndex = nil
        monitorOpcode = nil
        switch datalink {
        case .h1:
            // Bit 0: received; bit 1: command or event rather than data (taken to be ACL).
            let received = flags & 1 != 0
            direction = received ? .controllerToHost : .hostToController
            kind = .hci(flags & 2 != 0 ? (received ? .event : .command) : .acl)
            payload = data
        case .h4:
            // The indicator byte decides the type; the flags only give the direction, because
            // some phones flag vendor data on handle 0x0EDC as "received event".
            direction = flags & 1 != 0 ? .controllerToHost : .hostToController
            if let first = data.first, let type = HCIPacketType(rawValue: first) {
                kind = .hci(type)
                payload = UnsafeRawBufferPointer(rebasing: data[1...])
            } else {
                kind = .nonHCI
                payload = data
            }
        case .linuxMonitor:
            let opcode = MonitorOpcode(rawValue: UInt16(truncatingIfNeeded: flags))
            adapterIndex = UInt16(truncatingIfNeeded: flags >> 16)
            monitorOpcode = opcode
            payload = data
            if let packet = opcode.packet {
                kind = .hci(packet.type)
                direction = packet.direction
            } else {
                kind = .nonHCI
                direction = nil
            }
        }
    }
}
