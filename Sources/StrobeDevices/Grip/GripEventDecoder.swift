/// Decodes the grip's Events notifications in place and keeps the counts that tell a healthy
/// link from a lossy one: records, sequence gaps (records lost), unknown event codes and
/// malformed notifications.
public struct GripEventDecoder: Sendable {
    public struct Counters: Sendable, Hashable {
        public var notifications: UInt64 = 0
        public var records: UInt64 = 0
        /// Records the sequence numbers say were never received.
        public var lostRecords: UInt64 = 0
        /// Records whose sequence number repeated or went back.
        public var outOfOrderRecords: UInt64 = 0
        public var unknownEvents: UInt64 = 0
        public var malformedNotifications: UInt64 = 0
        public init() {}
    }

    public private(set) var counters = Counters()
    public private(set) var sequence = SequenceNumberTracker()
    public private(set) var lastError: GripDecodingError?

    public init() {}

    /// Hands each record of one notification to `body`, in order, without copying the value.
    /// A malformed notification delivers nothing, is counted and throws.
    /// Returns the number of records delivered.
    @discardableResult
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, _ body: (GripEventRecord) -> Void
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
            body(GripEventRecord(sequence: seq, event: event))
        }
        return count
    }

    /// A new connection: the next sequence number starts a new count.
    public mutating func connectionRestarted() { sequence.restart() }
}
