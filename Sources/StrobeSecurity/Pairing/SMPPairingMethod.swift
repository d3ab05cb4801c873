/// How the two sides authenticate each other (Core Specification Vol 3, Part H, 2.3.5.1).
public enum SMPPairingMethod: Sendable, Hashable, CustomStringConvertible {
    /// No authentication: the key is not protected against a man in the middle.
    case justWorks
    /// LE Secure Connections only: both show a six-digit number and their users confirm it.
    case numericComparison
    /// One side shows a six-digit passkey the other's user types (or both users type one).
    case passkeyEntry(initiatorDisplays: Bool, responderDisplays: Bool)

    /// Whether the method protects against a man in the middle.
    public var isAuthenticated: Bool { self != .justWorks }

    /// A short lower-case name: "just-works", "numeric-comparison" or "passkey-entry".
    public var name: String {
        switch self {
        case .justWorks: "just-works"
        case .numericComparison: "numeric-comparison"
        case .passkeyEntry: "passkey-entry"
        }
    }

    /// The same as `name`.
    public var description: String { name }

    /// The method the spec's tables give for the two sides' features; `nil` when out-of-band
    /// data was offered, which this stack does not support.
    package static func select(initiator: SMPPairingFeatures, responder: SMPPairingFeatures,
                              secureConnections: Bool) -> SMPPairingMethod? {
        if secureConnections ? (initiator.oobDataPresent || responder.oobDataPresent)
            : (initiator.oobDataPresent && responder.oobDataPresent) {
            return nil
        }
        guard initiator.authentication.contains(.mitm) || responder.authentication.contains(.mitm) else { return .justWorks }
        return fromIOCapabilities(initiator: initiator.ioCapability, responder: responder.ioCapability,
                                  secureConnections: secureConnections)
    }

    /// Table 2.8: the initiator's capability against the responder's.
    static func fromIOCapabilities(initiator i: SMPIOCapability, responder r: SMPIOCapability,
                                   secureConnections sc: Bool) -> SMPPairingMethod {
        let initiatorDisplays = SMPPairingMethod.passkeyEntry(initiatorDisplays: true, responderDisplays: false)
        let responderDisplays = SMPPairingMethod.passkeyEntry(initiatorDisplays: false, responderDisplays: true)
        switch (i, r) {
        case (.noInputNoOutput, _), (_, .noInputNoOutput): return .justWorks
        case (.displayOnly, .displayOnly), (.displayOnly, .displayYesNo), (.displayYesNo, .displayOnly): return .justWorks
        case (.displayOnly, .keyboardOnly), (.displayOnly, .keyboardDisplay),
             (.displayYesNo, .keyboardOnly), (.keyboardDisplay, .keyboardOnly): return initiatorDisplays
        case (.keyboardOnly, .displayOnly), (.keyboardOnly, .displayYesNo), (.keyboardOnly, .keyboardDisplay),
             (.keyboardDisplay, .displayOnly): return responderDisplays
        case (.keyboardOnly, .keyboardOnly): return .passkeyEntry(initiatorDisplays: false, responderDisplays: false)
        case (.displayYesNo, .displayYesNo): return sc ? .numericComparison : .justWorks
        case (.displayYesNo, .keyboardDisplay), (.keyboardDisplay, .keyboardDisplay): return sc ? .numericComparison : initiatorDisplays
        case (.keyboardDisplay, .displayYesNo): return sc ? .numericComparison : responderDisplays
        }
    }
}
