import StrobeHCI

/// A Nova V1 message: ASCII `(II:BODY)` where `II` is the request id as two hex digits.
/// Bodies: `P` ping, `O` off, `L,WW,CC,TTTT` light (warm and cool PWM as two hex digits, the
/// timeout in milliseconds as four), and `A` the flash's ack carrying the request's id.
/// Encoding writes upper-case hex; decoding also accepts lower case, as the reference SDK does.
package struct NovaV1Frame: Sendable, Hashable, CustomStringConvertible {
    package enum Body: Sendable, Hashable {
        case ping
        case off
        case light(NovaFlashSettings)
        case ack
    }

    package var requestID: UInt8
    package var body: Body

    package init(requestID: UInt8, body: Body) {
        self.requestID = requestID
        self.body = body
    }

    package func encode(into writer: inout ByteWriter) {
        writer.write(UInt8(ascii: "("))
        Self.writeHex(UInt16(requestID), digits: 2, into: &writer)
        writer.write(UInt8(ascii: ":"))
        switch body {
        case .ping: writer.write(UInt8(ascii: "P"))
        case .off: writer.write(UInt8(ascii: "O"))
        case .ack: writer.write(UInt8(ascii: "A"))
        case .light(let settings):
            writer.write(UInt8(ascii: "L"))
            writer.write(UInt8(ascii: ","))
            Self.writeHex(UInt16(settings.warm), digits: 2, into: &writer)
            writer.write(UInt8(ascii: ","))
            Self.writeHex(UInt16(settings.cool), digits: 2, into: &writer)
            writer.write(UInt8(ascii: ","))
            Self.writeHex(settings.timeoutMilliseconds, digits: 4, into: &writer)
        }
        writer.write(UInt8(ascii: ")"))
    }

    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 17)
        encode(into: &writer)
        return writer.bytes
    }

    /// Decodes exactly one frame; anything before, after or inside that does not fit is an error.
    package init(decoding bytes: UnsafeRawBufferPointer) throws(NovaDecodingError) {
        guard !bytes.isEmpty else { throw .empty }
        // "(", two id digits, ":", at least one body byte, ")".
        guard bytes.count >= 6, bytes[0] == UInt8(ascii: "("), bytes[3] == UInt8(ascii: ":"),
              bytes[bytes.count - 1] == UInt8(ascii: ")") else {
            throw .missingFraming(length: bytes.count)
        }
        guard let id = Self.hex(bytes, 1, digits: 2) else { throw .invalidHex(field: "request id") }
        requestID = UInt8(id)
        let body = UnsafeRawBufferPointer(rebasing: bytes[4..<(bytes.count - 1)])
        if body.count == 1 {
            switch body[0] {
            case UInt8(ascii: "P"): self.body = .ping
            case UInt8(ascii: "O"): self.body = .off
            case UInt8(ascii: "A"): self.body = .ack
            default: throw .unknownBody(length: 1)
            }
            return
        }
        // L,WW,CC,TTTT
        guard body.count == 12, body[0] == UInt8(ascii: "L"), body[1] == UInt8(ascii: ","),
              body[4] == UInt8(ascii: ","), body[7] == UInt8(ascii: ",") else {
            throw .unknownBody(length: body.count)
        }
        guard let warm = Self.hex(body, 2, digits: 2) else { throw .invalidHex(field: "warm PWM") }
        guard let cool = Self.hex(body, 5, digits: 2) else { throw .invalidHex(field: "cool PWM") }
        guard let timeout = Self.hex(body, 8, digits: 4) else { throw .invalidHex(field: "timeout") }
        self.body = .light(NovaFlashSettings(warm: UInt8(warm), cool: UInt8(cool), timeoutMilliseconds: timeout))
    }

    package init(decoding bytes: [UInt8]) throws(NovaDecodingError) {
        self = try decoding(bytes) { (raw) throws(NovaDecodingError) in try NovaV1Frame(decoding: raw) }
    }

    package var description: String { String(decoding: encoded(), as: UTF8.self) }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func writeHex(_ value: UInt16, digits: Int, into writer: inout ByteWriter) {
        for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
            writer.write(hexDigits[Int((value >> UInt16(shift)) & 0xF)])
        }
    }

    /// `digits` hex digits starting at `offset`; `nil` when one is not a hex digit.
    private static func hex(_ bytes: UnsafeRawBufferPointer, _ offset: Int, digits: Int) -> UInt16? {
        var value: UInt16 = 0
        for index in offset..<(offset + digits) {
            let nibble: UInt8
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = bytes[index] - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = bytes[index] - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = bytes[index] - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt16(nibble)
        }
        return value
    }
}
