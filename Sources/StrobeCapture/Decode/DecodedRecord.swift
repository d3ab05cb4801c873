import StrobeHCI

/// One capture record decoded layer by layer, as `strobe capture show` prints it: the HCI packet
/// (command, event, ACL), and for ACL data that completes an L2CAP PDU the L2CAP header and what
/// it carries (ATT, LE signalling, SMP). Undecodable bytes are kept as hex, never dropped.
package struct DecodedRecord: Sendable, Codable, Hashable {
    /// One named value of a layer, as text.
    package struct Field: Sendable, Codable, Hashable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// One protocol layer of the record: its one-line title and its fields.
    package struct Layer: Sendable, Codable, Hashable {
        /// `hci`, `acl`, `l2cap`, `att`, `smp` or `signaling`.
        package var protocolName: String
        package var title: String
        package var fields: [Field]

        enum CodingKeys: String, CodingKey {
            case protocolName = "protocol", title, fields
        }
    }

    /// Position in the file, from 0 (tshark's frame number less one).
    package var index: Int
    /// Seconds since the capture's first record.
    package var time: Double
    /// `host->controller`, `controller->host`, or `nil` when the record does not say.
    package var direction: String?
    /// `command`, `acl`, `sco`, `event`, `iso` or `non-HCI`.
    package var packet: String
    /// The capture kept fewer bytes than the packet had.
    package var truncated: Bool
    package var layers: [Layer]
    /// The numbers tools compare on.
    package var hciOpcode: UInt16?
    package var eventCode: UInt8?
    package var leSubevent: UInt8?
    package var attOpcode: UInt8?
    package var smpCode: UInt8?
    /// What no layer could decode, as hex.
    package var undecoded: String?

    /// Whether the record has a layer of `protocolName` (`hci` matches commands and events).
    package func has(_ protocolName: String) -> Bool { layers.contains { $0.protocolName == protocolName } }

    /// btmon's shape: a line per layer (`<` sent by the host, `>` received), fields indented.
    package var text: String {
        let arrow = direction == "host->controller" ? "<" : direction == "controller->host" ? ">" : "="
        var lines: [String] = []
        for (position, layer) in layers.enumerated() {
            let indent = String(repeating: "  ", count: position)
            let head = position == 0 ? "#\(index + 1) \(arrow) \(Self.seconds(time)) " : "      \(indent)"
            lines.append(head + layer.title + (position == 0 && truncated ? " (truncated)" : ""))
            for field in layer.fields { lines.append("        \(indent)\(field.name): \(field.value)") }
        }
        if layers.isEmpty { lines.append("#\(index + 1) \(arrow) \(Self.seconds(time)) \(packet)") }
        if let undecoded { lines.append("        raw: \(undecoded)") }
        return lines.joined(separator: "\n")
    }

    /// Seconds with six decimals. Capture times are the capture's word: a record may be stamped
    /// before the first (negative) or absurdly late, and still prints.
    package static func seconds(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 9e12 else { return "\(value)" }
        let micros = Int64((abs(value) * 1e6).rounded())
        let fraction = String(micros % 1_000_000)
        return (value < 0 ? "-" : "") + "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}
