import StrobeHCI

/// One record of the Events characteristic: `[seq u16 LE][code u8]`. `seq` counts records and
/// wraps at 65535.
package struct GripEventRecord: Sendable, Hashable {
    /// The size of one record in bytes: 3.
    package static let length = 3

    /// The record's sequence number: counts records and wraps 65535 -> 0.
    package var sequence: UInt16
    /// The control action that the record's code byte stands for.
    package var event: GripEvent

    /// A record numbered `sequence` that carries `event`.
    package init(sequence: UInt16, event: GripEvent) {
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
