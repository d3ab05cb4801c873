import StrobeCapture
import StrobeHCI

/// One libFuzzer target: a parser of the stack fed arbitrary bytes. `run` must never trap, hang
/// or leak whatever the input; `seeds` cuts starting inputs for it out of one capture.
struct FuzzTarget: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (UnsafeRawBufferPointer) -> Void
    let seeds: @Sendable (_ capture: [UInt8]) -> [[UInt8]]

    static let all: [FuzzTarget] = [
        .h4, .hciEvent, .aclL2CAP, .leSignaling, .l2capCOC, .attClient, .attServer, .advertisingData, .btsnoop, .deviceCodecs, .lights, .smp,
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// Several packets in one input, each as a little-endian u16 length and its bytes; the last may
/// fall short of its length. Targets that take a sequence (reassembly, a bearer's PDUs) read it.
enum PacketSequence {
    static func forEach(_ input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        var index = 0
        while index + 2 <= input.count {
            let length = Int(input[index]) | Int(input[index + 1]) << 8
            let start = index + 2
            let end = min(start + length, input.count)
            body(UnsafeRawBufferPointer(rebasing: input[start..<end]))
            index = end
        }
    }

    static func encode(_ packets: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for packet in packets {
            out += [UInt8(packet.count & 0xFF), UInt8(packet.count >> 8)]
            out += packet
        }
        return out
    }
}

/// The HCI packets of a capture, in order, as seeds are cut from them.
enum CaptureRecords {
    /// Each HCI record's type and payload (no H4 byte), at most `limit` of them.
    static func packets(of capture: [UInt8], limit: Int = 4096) -> [(type: HCIPacketType, bytes: [UInt8])] {
        guard let reader = try? BtsnoopReader(bytes: capture) else { return [] }
        var out: [(type: HCIPacketType, bytes: [UInt8])] = []
        while out.count < limit, let record = try? reader.next() {
            guard let type = record.packetType else { continue }
            out.append((type, Array(record.payload)))
        }
        return out
    }

    /// Distinct byte strings, at most `limit`, in the order first seen.
    static func distinct(_ inputs: [[UInt8]], limit: Int = 256) -> [[UInt8]] {
        var seen = Set<[UInt8]>()
        var out: [[UInt8]] = []
        for input in inputs where out.count < limit && seen.insert(input).inserted { out.append(input) }
        return out
    }
}
