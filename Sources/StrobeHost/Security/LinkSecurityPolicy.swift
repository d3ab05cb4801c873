import StrobeHCI
import StrobeSecurity

/// How a link reaches the security it needs, as decisions without I/O: what bringing the link
/// to a level takes (`secure(to:)`), what a GATT request refused with Insufficient
/// Authentication or Encryption leads to under the app's `InsufficientSecurityPolicy`, and how
/// a central answers a peripheral's Security Request (Core Vol 3, Part H, 2.4.6). Inputs: the
/// link's level and the key its bond holds; out: the step to take, and what the level must be
/// after it. `LinkSecurity` takes the steps.
package struct LinkSecurityPolicy: Sendable, Hashable {
    package var role: LERole
    package var allowsPairing: Bool
    package var onInsufficientSecurity: InsufficientSecurityPolicy

    package init(role: LERole, allowsPairing: Bool, onInsufficientSecurity: InsufficientSecurityPolicy) {
        self.role = role
        self.allowsPairing = allowsPairing
        self.onInsufficientSecurity = onInsufficientSecurity
    }

    /// What the link has when it decides.
    package struct Link: Sendable, Hashable {
        /// The link's level now.
        package var level: SMPSecurityLevel
        /// The level encrypting with the bond's key gives, when this host is the bond's central
        /// and it holds a long-term key; nil otherwise (no bond, or one that cannot encrypt).
        package var bondKeyLevel: SMPSecurityLevel?

        package init(level: SMPSecurityLevel, bondKeyLevel: SMPSecurityLevel?) {
            self.level = level
            self.bondKeyLevel = bondKeyLevel
        }
    }

    package enum Step: Sendable, Hashable {
        /// Nothing to do: the link is at this level.
        case done(SMPSecurityLevel)
        /// Encrypt with the bond's key; the link must then be at `required`.
        case encrypt(required: SMPSecurityLevel)
        /// Pair; the link must then be at `required`.
        case pair(required: SMPSecurityLevel)
        /// The caller's error, without trying.
        case fail(Failure)
    }

    package enum Failure: Error, Sendable, Hashable {
        case insufficientLevel(reached: SMPSecurityLevel, required: SMPSecurityLevel)
        /// Encrypting needs a bond with a key, and there is none.
        case noBond
        case pairingNotAllowed
        /// Only a central secures the link for its GATT requests: the peer's error stands.
        case notCentral
    }

    /// How a central answers a Security Request.
    package enum SecurityRequestAnswer: Sendable, Hashable {
        /// Encrypt with the bond's key; should that fail, `encryptionForRequestFailed` says what next.
        case encrypt
        case pair
        /// Pairing Failed (Pairing Not Supported): this host does not pair.
        case refuse
    }

    /// Brings the link to `minimum`: nothing when it is there, else encrypt with a bond that
    /// gives at least that, else pair.
    package func secure(to minimum: SMPSecurityLevel, _ link: Link) -> Step {
        if link.level >= minimum { return .done(link.level) }
        if role == .central, let key = link.bondKeyLevel, key >= minimum { return .encrypt(required: minimum) }
        return allowsPairing ? .pair(required: minimum) : .fail(.pairingNotAllowed)
    }

    /// A GATT request came back Insufficient Authentication or Insufficient Encryption: an
    /// unencrypted link needs encryption, an encrypted one a pairing with MITM protection.
    package func insufficientSecurity(_ link: Link) -> Step {
        guard role == .central else { return .fail(.notCentral) }
        let needed: SMPSecurityLevel = link.level == .none ? .unauthenticated : .authenticated
        guard link.level < needed else { return .fail(.insufficientLevel(reached: link.level, required: needed)) }
        switch onInsufficientSecurity {
        case .fail:
            return .fail(.insufficientLevel(reached: link.level, required: needed))
        case .encryptOnly:
            return link.bondKeyLevel == nil ? .fail(.noBond) : .encrypt(required: needed)
        case .encryptOrPair:
            return secure(to: needed, link)
        }
    }

    /// Central: the peripheral asked for security. Encrypt with its bond, else pair.
    package func securityRequested(_ link: Link) -> SecurityRequestAnswer {
        link.bondKeyLevel != nil ? .encrypt : encryptionForRequestFailed()
    }

    /// The bond's key did not encrypt the link for the Security Request.
    package func encryptionForRequestFailed() -> SecurityRequestAnswer {
        allowsPairing ? .pair : .refuse
    }
}
