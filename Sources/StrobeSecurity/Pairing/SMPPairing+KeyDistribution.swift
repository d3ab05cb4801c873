import StrobeHCI

/// Pairing phase 3 (Core Specification Vol 3, Part H, 2.4.3 and 3.6): on the encrypted link the
/// responder sends its keys, then the initiator, each side's in the spec's order.
extension SMPPairing {
    mutating func startKeyDistribution() -> [SMPPairingAction] {
        guard let response else { return [] }
        var theirs = role == .initiator ? response.responderKeys : response.initiatorKeys
        // LE Secure Connections derives the LTK on both sides: none is sent.
        if secureConnections { theirs.remove(.encryptionKey) }
        expectedKeys = []
        if theirs.contains(.encryptionKey) { expectedKeys += [.encryptionInformation, .centralIdentification] }
        if theirs.contains(.identityKey) { expectedKeys += [.identityInformation, .identityAddressInformation] }
        if theirs.contains(.signingKey) { expectedKeys.append(.signingInformation) }
        phase = .keyDistribution
        if role == .responder {
            let sent = sendOwnKeys()
            return expectedKeys.isEmpty ? sent + complete() : sent
        }
        return expectedKeys.isEmpty ? sendOwnKeys() + complete() : []
    }

    mutating func receiveKey(_ pdu: SMPPDU) -> [SMPPairingAction] {
        expectedKeys.removeFirst()
        switch pdu {
        case .encryptionInformation(let ltk):
            received.ltk = ltk
        case .centralIdentification(let ediv, let rand):
            received.ediv = ediv
            received.rand = rand
        case .identityInformation(let value):
            let irk = IdentityResolvingKey(value: value)
            received.irk = irk.isZero ? nil : irk
        case .identityAddressInformation(let identity):
            if let invalidity = identity.invalidity {
                return fail(.invalidParameters, "the peer claimed an identity that cannot be one: \(invalidity)")
            }
            received.identity = identity
        case .signingInformation(let csrk):
            received.csrk = SignatureResolvingKey(value: csrk)
        default:
            return unexpected(pdu.code)
        }
        guard expectedKeys.isEmpty else { return [] }
        return role == .initiator ? sendOwnKeys() + complete() : complete()
    }

    private mutating func sendOwnKeys() -> [SMPPairingAction] {
        guard let response else { return [] }
        var ours = role == .initiator ? response.initiatorKeys : response.responderKeys
        if secureConnections { ours.remove(.encryptionKey) }
        var out: [SMPPairingAction] = []
        if ours.contains(.encryptionKey) {
            let r = random(26)
            let ltk = LongTermKey(value: truncated(Array(r[0..<16])), ediv: UInt16(r[16]) | UInt16(r[17]) << 8,
                                  rand: r[18..<26].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, keySize: keySize)
            sentKeys.ltk = ltk
            out.append(.send(.encryptionInformation(ltk: ltk.value)))
            out.append(.send(.centralIdentification(ediv: ltk.ediv, rand: ltk.rand)))
        }
        if ours.contains(.identityKey), let identity = configuration.identity {
            sentKeys.irk = true
            out.append(.send(.identityInformation(irk: identity.irk.value)))
            out.append(.send(.identityAddressInformation(identity.address)))
        }
        if ours.contains(.signingKey) {
            let csrk = SignatureResolvingKey(value: random(16))
            sentKeys.csrk = csrk
            out.append(.send(.signingInformation(csrk: csrk.value)))
        }
        return out
    }

    private mutating func complete() -> [SMPPairingAction] {
        phase = .finished
        guard let request, let response, let pairingKey else { return [] }
        // The key for later encryption in this role: the derived LTK (Secure Connections), else
        // the LTK the peripheral distributed.
        var ltk: LongTermKey?
        if secureConnections {
            ltk = pairingKey
        } else if role == .initiator, let value = received.ltk {
            ltk = LongTermKey(value: value, ediv: received.ediv, rand: received.rand, keySize: keySize)
        } else if role == .responder {
            ltk = sentKeys.ltk
        }
        var names: [String] = []
        if secureConnections { names.append("LTK") }
        if received.ltk != nil { names.append("peer LTK") }
        if received.irk != nil { names.append("peer IRK") }
        if received.identity != nil { names.append("peer identity address") }
        if received.csrk != nil { names.append("peer CSRK") }
        if sentKeys.ltk != nil { names.append("local LTK") }
        if sentKeys.irk { names += ["local IRK", "local identity address"] }
        if sentKeys.csrk != nil { names.append("local CSRK") }
        let bonded = request.authentication.contains(.bonding) && response.authentication.contains(.bonding)
        let result = SMPPairingResult(
            method: method, secureConnections: secureConnections, keySize: keySize,
            securityLevel: .of(authenticated: method.isAuthenticated, secureConnections: secureConnections, keySize: keySize),
            bonded: bonded, longTermKey: ltk, peerIRK: received.irk, peerIdentity: received.identity,
            peerCSRK: received.csrk, localCSRK: sentKeys.csrk, keysExchanged: names)
        return [.completed(result)]
    }
}

/// What a pairing that succeeded produced. Its description names the keys, never their values.
public struct SMPPairingResult: Sendable, Hashable, CustomStringConvertible {
    /// How the two sides authenticated each other.
    public var method: SMPPairingMethod
    /// Whether LE Secure Connections was used (else LE legacy pairing).
    public var secureConnections: Bool
    /// The negotiated encryption key size, 7 ... 16 octets.
    public var keySize: Int
    /// The level of the link encrypted by this pairing.
    public var securityLevel: SMPSecurityLevel
    /// Both sides asked to bond: the keys are to be stored.
    public var bonded: Bool
    /// The key to encrypt later links with, in this host's role; `nil` when legacy pairing
    /// distributed none.
    public var longTermKey: LongTermKey?
    /// The IRK from the peer's Identity Information; nil when it sent none or an all-zero one.
    public var peerIRK: IdentityResolvingKey?
    /// The address from the peer's Identity Address Information; nil when it sent none.
    public var peerIdentity: IdentityAddress?
    /// The CSRK from the peer's Signing Information; nil when it sent none.
    public var peerCSRK: SignatureResolvingKey?
    /// The CSRK this host distributed in Signing Information; nil when it sent none.
    public var localCSRK: SignatureResolvingKey?
    /// The keys that crossed (or were derived), by name.
    public var keysExchanged: [String]

    package init(
        method: SMPPairingMethod, secureConnections: Bool, keySize: Int, securityLevel: SMPSecurityLevel, bonded: Bool,
        longTermKey: LongTermKey?, peerIRK: IdentityResolvingKey?, peerIdentity: IdentityAddress?,
        peerCSRK: SignatureResolvingKey?, localCSRK: SignatureResolvingKey?, keysExchanged: [String]
    ) {
        self.method = method
        self.secureConnections = secureConnections
        self.keySize = keySize
        self.securityLevel = securityLevel
        self.bonded = bonded
        self.longTermKey = longTermKey
        self.peerIRK = peerIRK
        self.peerIdentity = peerIdentity
        self.peerCSRK = peerCSRK
        self.localCSRK = localCSRK
        self.keysExchanged = keysExchanged
    }

    /// Names the pairing kind, method, security level, key size and keys (never their values), and
    /// whether the two bonded.
    public var description: String {
        "\(secureConnections ? "LE Secure Connections" : "LE legacy") \(method), \(securityLevel), "
            + "\(keySize)-octet key, keys [\(keysExchanged.joined(separator: ", "))]\(bonded ? ", bonded" : "")"
    }
}
