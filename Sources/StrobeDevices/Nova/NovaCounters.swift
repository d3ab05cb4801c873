import StrobeHCI

/// The V2 counters characteristic (`EFF4`, read): a whole number of big-endian u32 values whose
/// meaning the public SDK does not name; kept in order.
public struct NovaCounters: Sendable, Hashable {
    /// The counters in the order the characteristic holds them; empty when it holds none.
    public var values: [UInt32]

    /// Counters holding `values`, e.g. for a simulated flash.
    public init(values: [UInt32]) { self.values = values }

    /// The characteristic value: each counter as four big-endian bytes, in order.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: values.count * 4)
        for value in values { writer.writeBigEndian(value) }
        return writer.bytes
    }

    /// Any length that is not a multiple of 4 is malformed; an empty value is no counters.
    package init(decoding bytes: UnsafeRawBufferPointer) throws(NovaDecodingError) {
        guard bytes.count % 4 == 0 else {
            throw .notWholeItems(message: "counters", itemSize: 4, actual: bytes.count)
        }
        var reader = ByteReader(bytes)
        var values: [UInt32] = []
        values.reserveCapacity(bytes.count / 4)
        while let value = reader.readBigEndian(UInt32.self) { values.append(value) }
        self.values = values
    }
}
