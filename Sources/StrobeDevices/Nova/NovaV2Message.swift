import StrobeHCI

/// A Nova V2 message: `[command u8][0x00][request id u16 BE]` and, by command,
/// FLASH `[timeout ms u16 BE][warm u8][cool u8]` or TRIGGER `[pressed u8]`. Big-endian throughout.
package struct NovaV2Message: Sendable, Hashable {
    /// The command byte.
    package enum Command: UInt8, Sendable, CaseIterable {
        case ack = 0
        case ping = 1
        case flash = 2
        case off = 3
        /// Device -> host: the flash's own button, used as a remote shutter.
        case trigger = 4

        /// The whole message's length for this command.
        package var length: Int {
            switch self {
            case .ack, .ping, .off: 4
            case .flash: 8
            case .trigger: 5
            }
        }
    }

    package enum Body: Sendable, Hashable {
        case ack
        case ping
        case flash(NovaFlashSettings)
        case off
        case trigger(pressed: Bool)

        package var command: Command {
            switch self {
            case .ack: .ack
            case .ping: .ping
            case .flash: .flash
            case .off: .off
            case .trigger: .trigger
            }
        }
    }

    package var requestID: UInt16
    package var body: Body

    package init(requestID: UInt16, body: Body) {
        self.requestID = requestID
        self.body = body
    }

    package func encode(into writer: inout ByteWriter) {
        writer.write(body.command.rawValue)
        writer.write(UInt8(0))
        writer.writeBigEndian(requestID)
        switch body {
        case .ack, .ping, .off: break
        case .flash(let settings):
            writer.writeBigEndian(settings.timeoutMilliseconds)
            writer.write(settings.warm)
            writer.write(settings.cool)
        case .trigger(let pressed):
            writer.write(UInt8(pressed ? 1 : 0))
        }
    }

    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 8)
        encode(into: &writer)
        return writer.bytes
    }

    /// Decodes exactly one message; its length must be the command's.
    package init(decoding bytes: UnsafeRawBufferPointer) throws(NovaDecodingError) {
        var reader = ByteReader(bytes)
        guard let raw = reader.readUInt8() else { throw .empty }
        guard let command = Command(rawValue: raw) else { throw .unknownCommand(raw) }
        guard bytes.count == command.length else {
            throw .unexpectedLength(message: "V2 \(command)", expected: command.length, actual: bytes.count)
        }
        // Lengths are checked above: these reads cannot run out.
        let padding = reader.readUInt8() ?? 0
        guard padding == 0 else { throw .nonZeroPadding(padding) }
        requestID = reader.readBigEndian(UInt16.self) ?? 0
        switch command {
        case .ack: body = .ack
        case .ping: body = .ping
        case .off: body = .off
        case .flash:
            let timeout = reader.readBigEndian(UInt16.self) ?? 0
            let warm = reader.readUInt8() ?? 0
            let cool = reader.readUInt8() ?? 0
            body = .flash(NovaFlashSettings(warm: warm, cool: cool, timeoutMilliseconds: timeout))
        case .trigger:
            body = .trigger(pressed: (reader.readUInt8() ?? 0) != 0)
        }
    }

    package init(decoding bytes: [UInt8]) throws(NovaDecodingError) {
        self = try decoding(bytes) { (raw) throws(NovaDecodingError) in try NovaV2Message(decoding: raw) }
    }
}
