import StrobeHCI

/// What a capture holds, for `strobe capture info`: datalink, record count, time span, and
/// counts per packet type and direction. Encodes to JSON with the keys `datalink`, `version`,
/// `records`, `firstTimestamp`, `lastTimestamp` (null when there are no records),
/// `packetTypes`, `directions`, `truncatedRecords`, `cumulativeDrops`.
package struct CaptureSummary: Sendable, Equatable, Encodable, CustomStringConvertible {
    package struct Datalink: Sendable, Equatable, Encodable {
        package var number: UInt32
        package var name: String

        package init(number: UInt32, name: String) {
            self.number = number
            self.name = name
        }
    }

    package struct Timestamp: Sendable, Equatable, Encodable {
        package var unixMicroseconds: Int64
        /// UTC, with microseconds: `2018-10-14T19:57:19.735026Z`.
        package var iso8601: String

        package init(_ timestamp: BtsnoopTimestamp) {
            unixMicroseconds = timestamp.unixMicroseconds
            iso8601 = timestamp.iso8601
        }
    }

    package struct PacketTypeCounts: Sendable, Equatable, Encodable {
        package var command = 0
        package var acl = 0
        package var sco = 0
        package var event = 0
        package var iso = 0
        package var nonHCI = 0

        package init() {}

        package subscript(type: HCIPacketType) -> Int {
            get {
                switch type {
                case .command: command
                case .acl: acl
                case .sco: sco
                case .event: event
                case .iso: iso
                }
            }
            set {
                switch type {
                case .command: command = newValue
                case .acl: acl = newValue
                case .sco: sco = newValue
                case .event: event = newValue
                case .iso: iso = newValue
                }
            }
        }
    }

    package struct DirectionCounts: Sendable, Equatable, Encodable {
        package var hostToController = 0
        package var controllerToHost = 0
        /// Monitor records that belong to no direction (New Index, notes, ...).
        package var none = 0

        package init() {}
    }

    package var datalink: Datalink
    package var version: UInt32
    package var records = 0
    package var firstTimestamp: Timestamp?
    package var lastTimestamp: Timestamp?
    package var packetTypes = PacketTypeCounts()
    package var directions = DirectionCounts()
    /// Records that kept fewer bytes than the packet had.
    package var truncatedRecords = 0
    /// The last record's cumulative drop count: packets the capturing side lost.
    package var cumulativeDrops: UInt32 = 0

    /// An empty summary, to be filled with `add(_:)` (for callers that want what was read
    /// before an error).
    package init(datalink: BtsnoopDatalink, version: UInt32 = 1) {
        self.datalink = Datalink(number: datalink.rawValue, name: datalink.name)
        self.version = version
    }

    /// Reads the whole file at `path`.
    package init(path: String) throws(BtsnoopError) {
        try self.init(reader: BtsnoopReader(path: path))
    }

    /// Reads every remaining record of `reader`.
    package init(reader: BtsnoopReader) throws(BtsnoopError) {
        self.init(datalink: reader.datalink, version: reader.version)
        while let record = try reader.next() { add(record) }
    }

    package mutating func add(_ record: BtsnoopRecord) {
        records += 1
        let time = Timestamp(record.timestamp)
        if firstTimestamp == nil { firstTimestamp = time }
        lastTimestamp = time
        switch record.kind {
        case .hci(let type): packetTypes[type] += 1
        case .nonHCI: packetTypes.nonHCI += 1
        }
        switch record.direction {
        case .hostToController: directions.hostToController += 1
        case .controllerToHost: directions.controllerToHost += 1
        case nil: directions.none += 1
        }
        if record.isTruncated { truncatedRecords += 1 }
        cumulativeDrops = record.cumulativeDrops
    }

    private enum CodingKeys: String, CodingKey {
        case datalink, version, records, firstTimestamp, lastTimestamp, packetTypes, directions,
            truncatedRecords, cumulativeDrops
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(datalink, forKey: .datalink)
        try container.encode(version, forKey: .version)
        try container.encode(records, forKey: .records)
        // Always present, so that consumers need not test for the key.
        try container.encode(firstTimestamp, forKey: .firstTimestamp)
        try container.encode(lastTimestamp, forKey: .lastTimestamp)
        try container.encode(packetTypes, forKey: .packetTypes)
        try container.encode(directions, forKey: .directions)
        try container.encode(truncatedRecords, forKey: .truncatedRecords)
        try container.encode(cumulativeDrops, forKey: .cumulativeDrops)
    }

    /// A few aligned lines for people.
    package var text: String {
        var lines = [
            "datalink:   \(datalink.number) (\(datalink.name))",
            "records:    \(records)",
        ]
        if let first = firstTimestamp, let last = lastTimestamp {
            lines.append("first:      \(first.iso8601) (\(first.unixMicroseconds) us)")
            lines.append("last:       \(last.iso8601) (\(last.unixMicroseconds) us)")
            lines.append("span:       \(Self.duration(microseconds: last.unixMicroseconds &- first.unixMicroseconds))")
        }
        let p = packetTypes
        lines.append(
            "packets:    command \(p.command), event \(p.event), acl \(p.acl), sco \(p.sco), iso \(p.iso), non-HCI \(p.nonHCI)")
        var direction = "direction:  host->controller \(directions.hostToController), controller->host \(directions.controllerToHost)"
        if directions.none > 0 { direction += ", none \(directions.none)" }
        lines.append(direction)
        if truncatedRecords > 0 { lines.append("truncated:  \(truncatedRecords) records cut short by the capture") }
        if cumulativeDrops > 0 { lines.append("drops:      \(cumulativeDrops) packets lost while capturing") }
        return lines.joined(separator: "\n")
    }

    package var description: String { text }

    /// `1h 02m 03.456789s`, or `3.456789s` under a minute.
    static func duration(microseconds: Int64) -> String {
        let sign = microseconds < 0 ? "-" : ""
        let total = microseconds.magnitude
        let fraction = String(total % 1_000_000)
        let paddedFraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        let seconds = total / 1_000_000
        let (hours, minutes, secs) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        func two(_ v: UInt64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        if hours > 0 { return "\(sign)\(hours)h \(two(minutes))m \(two(secs)).\(paddedFraction)s" }
        if minutes > 0 { return "\(sign)\(minutes)m \(two(secs)).\(paddedFraction)s" }
        return "\(sign)\(secs).\(paddedFraction)s"
    }
}
