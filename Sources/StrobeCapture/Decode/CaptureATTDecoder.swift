import StrobeHCI
import StrobeHost

/// One ATT PDU found in a capture: the frame that completed it (1-based, as Wireshark numbers
/// frames), its connection handle and direction, its opcode, and for Handle Value Notification
/// and Indication the attribute handle and value.
package struct CaptureATTPDU: Sendable, Hashable {
    package var frame: Int
    package var connectionHandle: ConnectionHandle
    package var direction: BtsnoopDirection?
    package var opcode: UInt8
    package var handle: AttributeHandle?
    package var value: [UInt8]?

    /// `frame  chandle  opcode  handle  value`, tab-separated, formatted as tshark prints
    /// `frame.number`, `bthci_acl.chandle`, `btatt.opcode`, `btatt.handle` and `btatt.value`.
    package var tsv: String {
        [String(frame), hex(connectionHandle.rawValue, digits: 4), hex(opcode, digits: 2),
         handle.map { hex($0.rawValue, digits: 4) } ?? "", value.map { $0.map { hex($0, digits: 2, prefix: false) }.joined() } ?? ""]
            .joined(separator: "\t")
    }

    package var text: String {
        let name = ATTOpcode(rawValue: opcode).description
        var line = "\(frame)\t\(hex(connectionHandle.rawValue, digits: 4))\t\(direction.map { "\($0)" } ?? "?")\t\(name)"
        if let handle { line += " handle \(hex(handle.rawValue, digits: 4))" }
        if let value { line += " value \(value.map { hex($0, digits: 2, prefix: false) }.joined())" }
        return line
    }
}

private func hex<T: BinaryInteger>(_ value: T, digits: Int, prefix: Bool = true) -> String {
    let text = String(value, radix: 16)
    return (prefix ? "0x" : "") + String(repeating: "0", count: max(0, digits - text.count)) + text
}

/// What the decoder saw besides ATT PDUs.
package struct CaptureDecodeCounters: Sendable, Hashable {
    package var records = 0
    package var aclPackets = 0
    package var l2capPDUs = 0
    package var attPDUs = 0
    /// ACL packets too short for their header, and L2CAP reassembly errors (lost start
    /// fragments, lengths that do not add up).
    package var malformed = 0
    /// Truncated records: the capture kept fewer bytes than the packet had.
    package var truncatedRecords = 0
    package init() {}
}

/// Reads a btsnoop capture and yields its ATT PDUs: ACL reassembled into L2CAP per connection
/// handle and direction (as tshark does), channel 4 picked out. Streaming: one record in memory.
package final class CaptureATTDecoder {
    package private(set) var counters = CaptureDecodeCounters()
    private let reader: BtsnoopReader
    private var reassemblers = CaptureReassemblers()
    private var ready: [CaptureATTPDU] = []
    private var readyIndex = 0

    package init(path: String) throws(BtsnoopError) {
        reader = try BtsnoopReader(path: path)
    }

    package init(bytes: [UInt8]) throws(BtsnoopError) {
        reader = try BtsnoopReader(bytes: bytes)
    }

    /// The next ATT PDU, or `nil` at the end of the capture. A malformed record or fragment is
    /// counted and skipped; a capture that is itself broken (bad header, cut record) throws.
    package func next() throws(BtsnoopError) -> CaptureATTPDU? {
        while readyIndex == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            guard let record = try reader.next() else { return nil }
            counters.records += 1
            guard record.packetType == .acl else { continue }
            if record.isTruncated {
                counters.truncatedRecords += 1
                continue
            }
            decodeACL(record)
        }
        defer { readyIndex += 1 }
        return ready[readyIndex]
    }

    private func decodeACL(_ record: BtsnoopRecord) {
        let packet: ACLDataPacket
        do throws(L2CAPError) {
            packet = try ACLDataPacket(parsing: record.payload)
        } catch {
            counters.malformed += 1
            return
        }
        counters.aclPackets += 1
        let handle = packet.header.connectionHandle
        let direction = record.direction
        let frame = record.index + 1
        reassemblers.reassembler(handle: handle, direction: direction).receive(packet) { event in
            switch event {
            case .pdu(let pdu):
                counters.l2capPDUs += 1
                guard pdu.channel == .att, let opcode = pdu.payload.first else { return }
                counters.attPDUs += 1
                var found = CaptureATTPDU(frame: frame, connectionHandle: handle, direction: direction, opcode: opcode)
                if opcode == ATTOpcode.handleValueNotification.rawValue || opcode == ATTOpcode.handleValueIndication.rawValue,
                   pdu.payload.count >= 3 {
                    found.handle = AttributeHandle(UInt16(pdu.payload[1]) | UInt16(pdu.payload[2]) << 8)
                    found.value = Array(pdu.payload[3...])
                }
                ready.append(found)
            case .error:
                counters.malformed += 1
            }
        }
    }
}
