import StrobeHCI

/// The 36-byte header of every LIFX LAN message (frame, frame address, protocol header), all
/// little-endian.
package struct LIFXHeader: Sendable, Hashable {
    package static let size = 36
    package static let protocolNumber: UInt16 = 1024

    /// The whole message's length, header included.
    package var size: UInt16
    /// Set when `target` is all zeros: every device answers.
    package var tagged: Bool
    /// The client's id; non-zero, so that devices answer by unicast.
    package var source: UInt32
    /// The device's MAC in the first six bytes (its serial); zero for every device.
    package var target: UInt64
    package var resRequired: Bool
    package var ackRequired: Bool
    package var sequence: UInt8
    package var type: UInt16

    package init(size: UInt16, tagged: Bool, source: UInt32, target: UInt64, resRequired: Bool, ackRequired: Bool,
                sequence: UInt8, type: UInt16) {
        self.size = size
        self.tagged = tagged
        self.source = source
        self.target = target
        self.resRequired = resRequired
        self.ackRequired = ackRequired
        self.sequence = sequence
        self.type = type
    }

    func encode(into writer: inout ByteWriter) {
        writer.write(size)
        writer.write(Self.protocolNumber | 1 << 12 | (tagged ? 1 << 13 : 0))
        writer.write(source)
        writer.write(target)
        writer.write(contentsOf: [UInt8](repeating: 0, count: 6))
        writer.write(UInt8((resRequired ? 1 : 0) | (ackRequired ? 2 : 0)))
        writer.write(sequence)
        writer.write(UInt64(0))
        writer.write(type)
        writer.write(UInt16(0))
    }

    init(decoding reader: inout ByteReader) throws(LightsError) {
        guard let size = reader.readUInt16(), let flags = reader.readUInt16(), let source = reader.readUInt32(),
              let target = reader.readUInt64(), reader.readView(count: 6) != nil, let required = reader.readUInt8(),
              let sequence = reader.readUInt8(), reader.readUInt64() != nil, let type = reader.readUInt16(),
              reader.readUInt16() != nil
        else { throw .malformedLIFXMessage("\(reader.bytes.count) bytes, shorter than the 36-byte header") }
        guard flags & 0x0FFF == Self.protocolNumber else { throw .malformedLIFXMessage("protocol \(flags & 0x0FFF), not 1024") }
        self.init(size: size, tagged: flags & 1 << 13 != 0, source: source, target: target,
                  resRequired: required & 1 != 0, ackRequired: required & 2 != 0, sequence: sequence, type: type)
    }
}

extension LIFXHeader {
    /// A device's serial (its MAC) as the LIFX apps print it: twelve hex digits.
    package static func serial(of target: UInt64) -> String {
        (0..<6).map { String(format: "%02x", UInt8(truncatingIfNeeded: target >> (8 * $0))) }.joined()
    }

    package static func target(serial: String) -> UInt64? {
        let digits = Array(serial.utf8)
        guard digits.count == 12 else { return nil }
        var target: UInt64 = 0
        for index in 0..<6 {
            guard let byte = UInt8(String(decoding: digits[index * 2..<index * 2 + 2], as: UTF8.self), radix: 16) else { return nil }
            target |= UInt64(byte) << (8 * index)
        }
        return target
    }
}
