import StrobeHCI

/// The V2 flash defaults characteristic (`EFF3`, read/write, 8 bytes, big-endian):
/// `[regular timeout u16][regular warm][regular cool][preflash timeout u16][preflash warm][preflash cool]`.
/// The preflash is a dimmer light shown before the photo for focus and composition.
public struct NovaFlashDefaults: Sendable, Hashable {
    /// The value's size: 8 bytes.
    public static let length = 8

    /// The light of the photo itself (timeout, warm, cool): the first four bytes.
    public var regular: NovaFlashSettings
    /// The dimmer light shown before the photo for focus and composition: the last four bytes.
    public var preflash: NovaFlashSettings

    /// Defaults made of the `regular` light and the `preflash` light.
    public init(regular: NovaFlashSettings, preflash: NovaFlashSettings) {
        self.regular = regular
        self.preflash = preflash
    }

    /// The 8-byte big-endian characteristic value, as `NovaFlash.writeDefaults(_:)` writes it.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.length)
        for settings in [regular, preflash] {
            writer.writeBigEndian(settings.timeoutMilliseconds)
            writer.write(settings.warm)
            writer.write(settings.cool)
        }
        return writer.bytes
    }

    package init(decoding bytes: UnsafeRawBufferPointer) throws(NovaDecodingError) {
        guard bytes.count == Self.length else {
            throw .unexpectedLength(message: "flash defaults", expected: Self.length, actual: bytes.count)
        }
        var reader = ByteReader(bytes)
        func settings() -> NovaFlashSettings {
            let timeout = reader.readBigEndian(UInt16.self) ?? 0
            let warm = reader.readUInt8() ?? 0
            let cool = reader.readUInt8() ?? 0
            return NovaFlashSettings(warm: warm, cool: cool, timeoutMilliseconds: timeout)
        }
        regular = settings()
        preflash = settings()
    }
}
