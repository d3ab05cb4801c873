import StrobeHCI

/// One record of the Events characteristic: `[seq u16 LE][code u8]`. `seq` counts records and
/// wraps at 65535.
public struct GripEventRecord: Sendable, Hashable {
    public static let length = 3

    public var sequence: UInt16
    public var event: GripEvent

    public init(sequence: UInt16, event: GripEvent) {
        self.sequence = sequence
        self.event = event
    }

    package func encode(into writer: inout ByteWriter) {
        writer.write(sequence)
        writer.write(event.code)
    }

    /// A notification value holding `records` in order, for simulated grips.
    package static func encode(_ records: some Sequence<GripEventRecord>) -> [UInt8] {
        var writer = ByteWriter(capacity: 3 * records.underestimatedCount)
        for record in records { record.encode(into: &writer) }
        return writer.bytes
    }
}
