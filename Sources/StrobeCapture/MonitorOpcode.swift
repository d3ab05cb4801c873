import StrobeHCI

/// The opcode of a Linux monitor record (datalink 2001): the low 16 bits of the record's flags.
/// Values are those of the kernel's HCI monitor channel (`HCI_MON_*`), which `btmon -w` stores.
package struct MonitorOpcode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    package var rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    package static let newIndex = MonitorOpcode(rawValue: 0)
    package static let deleteIndex = MonitorOpcode(rawValue: 1)
    package static let commandPacket = MonitorOpcode(rawValue: 2)
    package static let eventPacket = MonitorOpcode(rawValue: 3)
    package static let aclTXPacket = MonitorOpcode(rawValue: 4)
    package static let aclRXPacket = MonitorOpcode(rawValue: 5)
    package static let scoTXPacket = MonitorOpcode(rawValue: 6)
    package static let scoRXPacket = MonitorOpcode(rawValue: 7)
    package static let openIndex = MonitorOpcode(rawValue: 8)
    package static let closeIndex = MonitorOpcode(rawValue: 9)
    package static let indexInfo = MonitorOpcode(rawValue: 10)
    package static let vendorDiagnostic = MonitorOpcode(rawValue: 11)
    package static let systemNote = MonitorOpcode(rawValue: 12)
    package static let userLogging = MonitorOpcode(rawValue: 13)
    package static let controlOpen = MonitorOpcode(rawValue: 14)
    package static let controlClose = MonitorOpcode(rawValue: 15)
    package static let controlCommand = MonitorOpcode(rawValue: 16)
    package static let controlEvent = MonitorOpcode(rawValue: 17)
    package static let isoTXPacket = MonitorOpcode(rawValue: 18)
    package static let isoRXPacket = MonitorOpcode(rawValue: 19)

    /// The HCI packet this opcode carries, or `nil` for records that are not HCI traffic.
    package var packet: (type: HCIPacketType, direction: BtsnoopDirection)? {
        switch rawValue {
        case 2: (.command, .hostToController)
        case 3: (.event, .controllerToHost)
        case 4: (.acl, .hostToController)
        case 5: (.acl, .controllerToHost)
        case 6: (.sco, .hostToController)
        case 7: (.sco, .controllerToHost)
        case 18: (.iso, .hostToController)
        case 19: (.iso, .controllerToHost)
        default: nil
        }
    }

    /// The opcode that carries `type` in `direction`, if the monitor format has one
    /// (it has none for a command from the controller or an event from the host).
    package init?(carrying type: HCIPacketType, _ direction: BtsnoopDirection) {
        let sent = direction == .hostToController
        switch type {
        case .command where sent: self = .commandPacket
        case .event where !sent: self = .eventPacket
        case .acl: self = sent ? .aclTXPacket : .aclRXPacket
        case .sco: self = sent ? .scoTXPacket : .scoRXPacket
        case .iso: self = sent ? .isoTXPacket : .isoRXPacket
        default: return nil
        }
    }

    package var description: String {
        let names = [
            "new index", "delete index", "command", "event", "ACL TX", "ACL RX", "SCO TX", "SCO RX",
            "open index", "close index", "index info", "vendor diagnostic", "system note", "user logging",
            "control open", "control close", "control command", "control event", "ISO TX", "ISO RX",
        ]
        return Int(rawValue) < names.count ? names[Int(rawValue)] : "opcode \(rawValue)"
    }
}
