/// The Security Manager Protocol's commands (Core Specification Vol 3, Part H, 3.3) and the
/// fixed length of each one's parameters.
package enum SMPCommandCode: UInt8, Sendable, Hashable, CaseIterable {
    case pairingRequest = 0x01
    case pairingResponse = 0x02
    case pairingConfirm = 0x03
    case pairingRandom = 0x04
    case pairingFailed = 0x05
    case encryptionInformation = 0x06
    case centralIdentification = 0x07
    case identityInformation = 0x08
    case identityAddressInformation = 0x09
    case signingInformation = 0x0A
    case securityRequest = 0x0B
    case pairingPublicKey = 0x0C
    case pairingDHKeyCheck = 0x0D
    case pairingKeypressNotification = 0x0E

    /// The command's name in the specification, e.g. "Pairing Request".
    package var name: String {
        switch self {
        case .pairingRequest: "Pairing Request"
        case .pairingResponse: "Pairing Response"
        case .pairingConfirm: "Pairing Confirm"
        case .pairingRandom: "Pairing Random"
        case .pairingFailed: "Pairing Failed"
        case .encryptionInformation: "Encryption Information"
        case .centralIdentification: "Central Identification"
        case .identityInformation: "Identity Information"
        case .identityAddressInformation: "Identity Address Information"
        case .signingInformation: "Signing Information"
        case .securityRequest: "Security Request"
        case .pairingPublicKey: "Pairing Public Key"
        case .pairingDHKeyCheck: "Pairing DHKey Check"
        case .pairingKeypressNotification: "Pairing Keypress Notification"
        }
    }

    /// Encryption Information (LTK), Central Identification (EDIV, Rand), Identity Information
    /// (IRK), Signing Information (CSRK): the commands that carry keys, never to be printed.
    package var distributesKey: Bool {
        [.encryptionInformation, .centralIdentification, .identityInformation, .signingInformation].contains(self)
    }

    /// Octets after the code; every SMP command has exactly this many.
    package var parameterLength: Int {
        switch self {
        case .pairingRequest, .pairingResponse: 6
        case .pairingConfirm, .pairingRandom, .encryptionInformation, .identityInformation,
             .signingInformation, .pairingDHKeyCheck: 16
        case .pairingFailed, .securityRequest, .pairingKeypressNotification: 1
        case .centralIdentification: 10
        case .identityAddressInformation: 7
        case .pairingPublicKey: 64
        }
    }
}
