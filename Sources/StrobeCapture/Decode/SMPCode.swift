/// Security Manager Protocol command codes (Core Specification Vol 3, Part H, 3.3).
package enum SMPCode {
    package static func name(_ code: UInt8) -> String {
        switch code {
        case 0x01: "Pairing Request"
        case 0x02: "Pairing Response"
        case 0x03: "Pairing Confirm"
        case 0x04: "Pairing Random"
        case 0x05: "Pairing Failed"
        case 0x06: "Encryption Information"
        case 0x07: "Central Identification"
        case 0x08: "Identity Information"
        case 0x09: "Identity Address Information"
        case 0x0A: "Signing Information"
        case 0x0B: "Security Request"
        case 0x0C: "Pairing Public Key"
        case 0x0D: "Pairing DHKey Check"
        case 0x0E: "Pairing Keypress Notification"
        default: "SMP code 0x\(code < 0x10 ? "0" : "")\(String(code, radix: 16, uppercase: true))"
        }
    }

    /// Encryption Information (LTK), Central Identification (EDIV, Rand), Identity Information
    /// (IRK), Signing Information (CSRK): the PDUs that carry keys.
    package static func distributesKey(_ code: UInt8) -> Bool { [0x06, 0x07, 0x08, 0x0A].contains(code) }
}
