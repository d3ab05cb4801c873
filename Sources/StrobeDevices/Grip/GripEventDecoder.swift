/// Decodes the grip's Events notifications in place and keeps the counts that tell a healthy
/// link from a lossy one: records, sequence gaps (records lost), unknown event codes and
/// malformed notifications.
package struct GripEventDecoder: Sendable {
    /// Running totals since the decoder was created.
    package struct Counters: Sendable, Hashable {
        /// Events notifications handed to `decode`, malformed ones included.
        package var notifications: UInt64 = 0
        /// Records delivered from well-formed notifications.
        package var records: UInt64 = 0
        /// Records the sequence numbers say were never received.
        package var lostRecords: UInt64 = 0
        /// Records whose sequence number repeated or went back.
        package var outOfOrderRecords: UInt64 = 0
        /// Records whose event code profile v1 does not define (delivered as `GripEvent.unknown`).
        package var unknownEvents: UInt64 = 0
        /// Notifications dropped whole: empty or not a whole number of 3-byte records.
        package var malformedNotifications: UInt64 = 0
        /// All totals at zero.
        package init() {}
    }

    /// Notifications, records, losses, unknown codes and malformed notifications counted so far.
    package private(set) var counters = Counters()
    /// The tracker following the records' sequence numbers; `connectionRestarted()` keeps its
    /// totals.
    @usableFromInline package private(set) var sequence = SequenceNumberTracker()
    /// Why the most recent malformed notification was dropped; `nil` while none has been.
    package private(set) var lastError: GripDecodingError?

    /// A decoder with all counters at zero that has seen no sequence number.
    package init() {}

    /// Hands each record of one notification to `body`, in order, without copying the value.
    /// A malformed notification delivers nothing, is counted and throws.
    /// Returns the number of records delivered.
    @discardableResult @inline(__always)
    package mutating func decode(
        _ bytes: UnsafeRawBufferPointer, _ body: (GripEventRecord) -> Void
    ) throws(GripDecodingError) -> Int {
        try decode(bytes) { record, _ in body(record) }
    }

    /// As `decode(_:_:)`, handing `body` the counters with each record already counted.
    @discardableResult @inline(__always)
    package mutating func decode(
        _ bytes: UnsafeRawBufferPointer, _ body: (GripEventRecord, Counters) -> Void
    ) throws(GripDecodingError) -> Int {
        counters.notifications += 1
        guard !bytes.isEmpty, bytes.count % GripEventRecord.length == 0 else {
            let error: GripDecodingError = bytes.isEmpty ? .empty : .partialRecord(length: bytes.count)
            counters.malformedNotifications += 1
            lastError = error
            throw error
        }
        let count = bytes.count / GripEventRecord.length
        for index in 0..<count {
            let offset = index * GripEventRecord.length
            let seq = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let event = GripEvent(code: bytes[offset + 2])
            switch sequence.observe(seq) {
            case .gap(let lost): counters.lostRecords += UInt64(lost)
            case .outOfOrder: counters.outOfOrderRecords += 1
            case .first, .inOrder: break
            }
            if case .unknown = event { counters.unknownEvents += 1 }
            counters.records += 1
            body(GripEventRecord(sequence: seq, event: event), counters)
        }
        return count
    }

    /// A new connection: the next sequence number starts a new count.
    package mutating func connectionRestarted() { sequence.restart() }
}
