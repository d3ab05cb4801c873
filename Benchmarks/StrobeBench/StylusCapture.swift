import Foundation
import Strobe

/// Writes a btsnoop capture (datalink 1002) of stylus sample batches as a controller delivers
/// them: ATT Handle Value Notifications, cut into 27-byte ACL fragments, on one connection or
/// round several.
enum StylusCapture {
    static let connectionHandle: UInt16 = 0x0040
    static let valueHandle: UInt16 = 0x002A
    static let samplesPerBatch = 8

    /// `batches` in all; with more than one link, batch n on link n mod `links` (handles 1...),
    /// interleaved as `forEachACLPacket(links:batches:)` orders them.
    static func write(batches: Int, links: Int = 1, to path: String) throws {
        let writer = try BtsnoopWriter(path: path, datalink: .h4)
        let start = BtsnoopTimestamp.now()
        let links = max(links, 1)
        try forEachACLPacket(links: links, batches: batches) { packet, batch in
            // A round of one batch per link every 8 ms, as each pen sends.
            let time = BtsnoopTimestamp(unixMicroseconds: start.unixMicroseconds + Int64(batch / links) * 8000)
            try writer.write(.acl, direction: .controllerToHost, payload: packet, at: time)
        }
        try writer.close()
    }

    /// `batches` stylus batches as ACL packets, with the batch each belongs to. One link: on
    /// `connectionHandle`, batch after batch. More: batch n on link n mod `links` (handle 1 + the
    /// link), and each round of one batch per link sends its fragments interleaved across the
    /// links (first fragments of all, then second ...), as a controller may deliver them, so that
    /// every link reassembles while the others do.
    static func forEachACLPacket(links: Int, batches: Int, _ body: ([UInt8], Int) throws -> Void) throws {
        guard links > 1 else {
            var generator = Generator()
            for batch in 0..<batches { try generator.forEachACLPacket(ofBatch: batch) { try body($0, batch) } }
            return
        }
        var generators = [Generator](repeating: Generator(), count: links)
        var batch = 0
        while batch < batches {
            var round: [[[UInt8]]] = []
            let first = batch
            for link in 0..<min(links, batches - batch) {
                var packets: [[UInt8]] = []
                try generators[link].forEachACLPacket(ofBatch: batch / links, handle: UInt16(1 + link)) { packets.append($0) }
                round.append(packets)
                batch += 1
            }
            for fragment in 0..<(round.map(\.count).max() ?? 0) {
                for (link, packets) in round.enumerated() where fragment < packets.count { try body(packets[fragment], first + link) }
            }
        }
    }

    /// Makes batch after batch as the controller delivers them: each batch's notification (8
    /// samples, its sequence number from the encoder) in 27-byte ACL packets.
    struct Generator {
        private var encoder = StylusBatchEncoder(includesPositions: false)
        private var samples = [StylusSample](repeating: StylusSample(deltaMicroseconds: 1000, rawPressure: 0, buttons: [.tipContact]),
                                             count: StylusCapture.samplesPerBatch)
        private var value = [UInt8](repeating: 0, count: 256)

        /// Hands each ACL packet of batch number `batch` (ACL header and data, no H4 byte) on
        /// `handle` to `body`.
        mutating func forEachACLPacket(ofBatch batch: Int, handle: UInt16 = connectionHandle, _ body: ([UInt8]) throws -> Void) throws {
            for index in samples.indices { samples[index].rawPressure = UInt16((batch * samplesPerBatch + index) % 4096) }
            let length = try value.withUnsafeMutableBytes { try encoder.encode(samples, into: $0) }
            // L2CAP basic header, then the ATT notification: opcode, handle, value.
            var pdu: [UInt8] = [UInt8(truncatingIfNeeded: length + 3), UInt8(truncatingIfNeeded: (length + 3) >> 8), 0x04, 0x00,
                                0x1B, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8)]
            pdu.append(contentsOf: value[0..<length])
            var offset = 0
            while offset < pdu.count {
                let end = min(offset + 27, pdu.count)
                let boundary: UInt16 = offset == 0 ? 0b10 : 0b01  // first flushable, then continuing
                let flags = handle | boundary << 12
                var packet: [UInt8] = [UInt8(flags & 0xFF), UInt8(flags >> 8), UInt8(end - offset), 0]
                packet.append(contentsOf: pdu[offset..<end])
                try body(packet)
                offset = end
            }
        }

        /// Appends batch number `batch` as H4 bytes (type byte, then each ACL packet).
        mutating func appendH4(ofBatch batch: Int, to stream: inout [UInt8]) throws {
            try forEachACLPacket(ofBatch: batch) { packet in
                stream.append(HCIPacketType.acl.rawValue)
                stream.append(contentsOf: packet)
            }
        }
    }

    /// `forEachACLPacket(links:batches:)` as one H4 byte stream, as a transport would read it.
    static func h4Stream(links: Int, batches: Int) throws -> [UInt8] {
        var stream: [UInt8] = []
        try forEachACLPacket(links: links, batches: batches) { packet, _ in
            stream.append(HCIPacketType.acl.rawValue)
            stream.append(contentsOf: packet)
        }
        return stream
    }

    /// The capture's HCI packets as one H4 byte stream, as a transport would read it.
    static func h4Stream(of path: String) throws -> [UInt8] {
        let reader = try BtsnoopReader(path: path)
        var stream: [UInt8] = []
        while let record = try reader.next() {
            guard let type = record.packetType else { continue }
            stream.append(type.rawValue)
            stream.append(contentsOf: record.payload)
        }
        return stream
    }
}
