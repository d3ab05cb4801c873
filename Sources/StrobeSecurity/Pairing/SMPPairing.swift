import StrobeHCI

/// One pairing on one link, in either role, as a state machine that does no I/O and reads no
/// clock (Core Specification Vol 3, Part H, 2.3 to 2.4 and 3): SMP PDUs, the user's answers,
/// Encryption Change and the owner's 30 s timer go in; PDUs to send, questions for the user,
/// the key to encrypt with and the outcome come out as `SMPPairingAction`s.
///
/// LE Secure Connections (Just Works, Numeric Comparison, Passkey Entry) and LE legacy pairing
/// (Just Works, Passkey Entry). Out-of-band data is not supported. Once finished (keys or a
/// failure) the machine answers nothing more; a new pairing takes a new machine.
package struct SMPPairing: Sendable {
    package enum Role: Sendable, Hashable {
        /// The central: sends Pairing Request.
        case initiator
        /// The peripheral: answers Pairing Request.
        case responder
    }

    package struct Configuration: Sendable, Hashable {
        package var ioCapability: SMPIOCapability
        /// Ask the peer to store keys (Bonding_Flags); keys are stored only when both ask.
        package var bonding: Bool
        /// Offer LE Secure Connections; without it, LE legacy pairing only.
        package var secureConnections: Bool
        /// The smallest encryption key size accepted (7 ... 16); below it: Encryption Key Size.
        package var minimumKeySize: UInt8
        /// The keys this host distributes and the ones it asks of the peer. The identity key is
        /// distributed only when `identity` is set.
        package var keysToDistribute: SMPKeyDistribution
        package var keysToRequest: SMPKeyDistribution
        package var identity: LocalIdentity?
        /// A responder asks the user (`acceptPairing`) before answering a Pairing Request.
        package var asksToAccept: Bool
        /// LE Secure Connections Just Works asks the user to go on (`confirmJustWorks`) where
        /// Numeric Comparison would show the number, in either role.
        package var confirmsJustWorks: Bool

        package init(ioCapability: SMPIOCapability = .noInputNoOutput, bonding: Bool = true, secureConnections: Bool = true,
                    minimumKeySize: UInt8 = 16, keysToDistribute: SMPKeyDistribution = .supported,
                    keysToRequest: SMPKeyDistribution = .supported, identity: LocalIdentity? = nil, asksToAccept: Bool = false,
                    confirmsJustWorks: Bool = false) {
            self.confirmsJustWorks = confirmsJustWorks
            self.ioCapability = ioCapability
            self.bonding = bonding
            self.secureConnections = secureConnections
            self.minimumKeySize = min(max(minimumKeySize, 7), 16)
            self.keysToDistribute = keysToDistribute
            self.keysToRequest = keysToRequest
            self.identity = identity
            self.asksToAccept = asksToAccept
        }

        /// AuthReq: MITM whenever the IO capabilities could give it.
        package var authentication: SMPAuthenticationRequirements {
            var auth: SMPAuthenticationRequirements = []
            if bonding { auth.insert(.bonding) }
            if ioCapability != .noInputNoOutput { auth.insert(.mitm) }
            if secureConnections { auth.insert(.secureConnections) }
            return auth
        }

        var distributable: SMPKeyDistribution {
            identity == nil ? keysToDistribute.subtracting(.identityKey) : keysToDistribute
        }
    }

    /// The addresses the link was made with (the ones c1, f5 and f6 take).
    package struct Addresses: Sendable, Hashable {
        package var initiator: BluetoothAddress
        package var initiatorType: LEAddressType
        package var responder: BluetoothAddress
        package var responderType: LEAddressType

        package init(initiator: BluetoothAddress, initiatorType: LEAddressType, responder: BluetoothAddress, responderType: LEAddressType) {
            self.initiator = initiator
            self.initiatorType = initiatorType
            self.responder = responder
            self.responderType = responderType
        }

        /// 0 for a public address, 1 for a random one (identity types fold onto these).
        var iat: UInt8 { initiatorType.rawValue & 1 }
        var rat: UInt8 { responderType.rawValue & 1 }
        /// The 56-bit forms f5 and f6 take: the address, then its type.
        var a: [UInt8] { initiator.wireBytes + [iat] }
        var b: [UInt8] { responder.wireBytes + [rat] }
    }

    enum Phase: Sendable, Hashable {
        case idle
        case waitingForAcceptance
        case waitingForPairingResponse
        case legacyConfirm
        case legacyRandom
        case publicKey
        case confirm
        case random
        case dhKeyCheck
        case encryption
        case keyDistribution
        case finished
    }

    package let role: Role
    package let configuration: Configuration
    package let addresses: Addresses
    let random: @Sendable (Int) -> [UInt8]
    let keyPair: SMPKeyAgreement

    var phase = Phase.idle
    var request: SMPPairingFeatures?
    var response: SMPPairingFeatures?
    var method = SMPPairingMethod.justWorks
    var secureConnections = false
    var keySize = 16
    /// The passkey shown or typed; `nil` until known.
    var passkey: UInt32?
    var waitingForPasskey = false
    /// Legacy: TK. Both: this side's random value of the current round and the peer's.
    var tk: [UInt8]?
    var localRandom: [UInt8] = []
    var peerRandom: [UInt8] = []
    var peerConfirm: [UInt8]?
    var localConfirmSent = false
    // LE Secure Connections
    var peerPublicKey: (x: [UInt8], y: [UInt8])?
    var dhKey: [UInt8] = []
    var passkeyRound = 0
    /// The user confirmed the number (Numeric Comparison) or agreed to Just Works.
    var userConfirmed = false
    var peerDHKeyCheck: [UInt8]?
    var macKey: [UInt8] = []
    /// The STK (legacy) or LTK (Secure Connections) the link is encrypted with during pairing.
    var pairingKey: LongTermKey?
    // Key distribution
    var expectedKeys: [SMPCommandCode] = []
    var received = ReceivedKeys()
    var sentKeys = SentKeys()

    struct ReceivedKeys: Sendable {
        var ltk: [UInt8]?
        var ediv: UInt16 = 0
        var rand: UInt64 = 0
        var irk: IdentityResolvingKey?
        var identity: IdentityAddress?
        var csrk: SignatureResolvingKey?
    }

    struct SentKeys: Sendable {
        var ltk: LongTermKey?
        var irk = false
        var csrk: SignatureResolvingKey?
    }

    /// `random` gives random octets (tests pass a fixed one); `keyPair` is this side's P-256 key.
    package init(role: Role, configuration: Configuration, addresses: Addresses, keyPair: SMPKeyAgreement = SMPKeyAgreement(),
                random: @escaping @Sendable (Int) -> [UInt8] = SMPRandom.bytes) {
        self.role = role
        self.configuration = configuration
        self.addresses = addresses
        self.keyPair = keyPair
        self.random = random
    }

    /// Whether the machine has ended, with keys or without.
    package var isFinished: Bool { phase == .finished }

    /// Whether pairing is under way (started and not finished).
    package var isActive: Bool { phase != .idle && phase != .finished }

    /// The responder's answer to LE Long Term Key Request while pairing encrypts the link: the
    /// STK or LTK, asked for with EDIV and Rand zero.
    package var keyForEncryption: LongTermKey? { phase == .encryption && role == .responder ? pairingKey : nil }

    // MARK: Inputs

    /// The initiator starts: Pairing Request.
    package mutating func start() -> [SMPPairingAction] {
        guard role == .initiator, phase == .idle else { return [] }
        let features = SMPPairingFeatures(
            ioCapability: configuration.ioCapability, authentication: configuration.authentication,
            initiatorKeys: configuration.distributable, responderKeys: configuration.keysToRequest)
        request = features
        phase = .waitingForPairingResponse
        return [.send(.pairingRequest(features))]
    }

    /// One SMP PDU from the peer (code first).
    package mutating func receive(_ bytes: [UInt8]) -> [SMPPairingAction] {
        guard phase != .finished else { return [] }
        let pdu: SMPPDU
        do throws(SMPPDUError) {
            pdu = try SMPPDU(decoding: bytes)
        } catch {
            return fail(error.reason, error.description)
        }
        switch pdu {
        case .pairingFailed(let reason):
            phase = .finished
            return [.failed(.failedByPeer(reason))]
        case .pairingKeypressNotification:
            return []
        case .securityRequest:
            // A responder never gets one; an initiator already pairing goes on.
            return role == .initiator ? [] : fail(.commandNotSupported, "Security Request sent to the peripheral")
        case .pairingRequest(let features):
            guard role == .responder else { return fail(.commandNotSupported, "Pairing Request sent to the central") }
            guard phase == .idle else { return unexpected(pdu.code) }
            return receivePairingRequest(features)
        case .pairingResponse(let features):
            guard phase == .waitingForPairingResponse else { return unexpected(pdu.code) }
            return receivePairingResponse(features)
        case .pairingConfirm(let value):
            return receiveConfirm(value)
        case .pairingRandom(let value):
            return receiveRandom(value)
        case .pairingPublicKey(let x, let y):
            guard phase == .publicKey else { return unexpected(pdu.code) }
            return receivePublicKey(x: x, y: y)
        case .pairingDHKeyCheck(let value):
            guard phase == .dhKeyCheck, role == .responder || localConfirmSent else { return unexpected(pdu.code) }
            return receiveDHKeyCheck(value)
        case .encryptionInformation, .centralIdentification, .identityInformation, .identityAddressInformation,
             .signingInformation:
            guard phase == .keyDistribution, expectedKeys.first == pdu.code else { return unexpected(pdu.code) }
            return receiveKey(pdu)
        }
    }

    /// The responder's user accepted (or refused) the Pairing Request.
    package mutating func accept(_ accepted: Bool) -> [SMPPairingAction] {
        guard phase == .waitingForAcceptance else { return [] }
        guard accepted else { return fail(.pairingNotSupported, "the user refused to pair") }
        return respond()
    }

    /// The passkey the user typed; `nil` when they gave up.
    package mutating func passkeyEntered(_ value: UInt32?) -> [SMPPairingAction] {
        guard isActive, waitingForPasskey else { return [] }
        waitingForPasskey = false
        guard let value, value <= 999_999 else { return fail(.passkeyEntryFailed, "no passkey was entered") }
        passkey = value
        return passkeyKnown()
    }

    /// The user's answer to `confirmNumber`.
    package mutating func numberConfirmed(_ confirmed: Bool) -> [SMPPairingAction] {
        guard method == .numericComparison else { return [] }
        return userAnswered(confirmed, refusal: "the user did not confirm the number")
    }

    /// The user's answer to `confirmJustWorks`.
    package mutating func justWorksConfirmed(_ confirmed: Bool) -> [SMPPairingAction] {
        guard method == .justWorks, configuration.confirmsJustWorks else { return [] }
        return userAnswered(confirmed, refusal: "the user did not agree to pair")
    }

    /// Numeric Comparison and confirmed Just Works: the DHKey checks wait for the user. A
    /// refusal ends the pairing with Numeric Comparison Failed, as both share this step.
    private mutating func userAnswered(_ confirmed: Bool, refusal: String) -> [SMPPairingAction] {
        guard isActive, secureConnections, !userConfirmed, phase == .dhKeyCheck else { return [] }
        guard confirmed else { return fail(.numericComparisonFailed, refusal) }
        userConfirmed = true
        if role == .initiator { return sendDHKeyCheck() }
        return peerDHKeyCheck == nil ? [] : checkInitiatorDHKey()
    }

    /// Whether the DHKey checks wait for the user's answer.
    var awaitsUser: Bool {
        method == .numericComparison || (method == .justWorks && configuration.confirmsJustWorks)
    }

    /// Encryption Change (or Encryption Key Refresh Complete) for the link.
    package mutating func encryptionChanged(status: UInt8) -> [SMPPairingAction] {
        guard phase == .encryption else { return [] }
        guard status == 0 else {
            phase = .finished
            return [.failed(.encryptionFailed(status: status))]
        }
        return startKeyDistribution()
    }

    /// The owner's 30 s timer ran out: pairing ends, and no Pairing Failed is sent.
    package mutating func timedOut() -> [SMPPairingAction] {
        guard isActive else { return [] }
        phase = .finished
        return [.failed(.timeout)]
    }

    /// The link went down.
    package mutating func disconnected() -> [SMPPairingAction] {
        guard isActive else { return [] }
        phase = .finished
        return [.failed(.disconnected)]
    }

    // MARK: Feature exchange

    private mutating func receivePairingRequest(_ features: SMPPairingFeatures) -> [SMPPairingAction] {
        request = features
        guard configuration.asksToAccept else { return respond() }
        phase = .waitingForAcceptance
        return [.acceptPairing(features)]
    }

    private mutating func respond() -> [SMPPairingAction] {
        guard let request else { return [] }
        let features = SMPPairingFeatures(
            ioCapability: configuration.ioCapability, authentication: configuration.authentication,
            initiatorKeys: request.initiatorKeys.intersection(configuration.keysToRequest),
            responderKeys: request.responderKeys.intersection(configuration.distributable))
        response = features
        return negotiate(sending: [.send(.pairingResponse(features))])
    }

    private mutating func receivePairingResponse(_ features: SMPPairingFeatures) -> [SMPPairingAction] {
        guard let request, request.initiatorKeys.isSuperset(of: features.initiatorKeys),
              request.responderKeys.isSuperset(of: features.responderKeys) else {
            return fail(.invalidParameters, "the Pairing Response asks for keys the request did not offer")
        }
        response = features
        return negotiate(sending: [])
    }

    /// Both features known: key size, LE Secure Connections or legacy, the method, then the
    /// method's first step.
    private mutating func negotiate(sending actions: [SMPPairingAction]) -> [SMPPairingAction] {
        guard let request, let response else { return [] }
        keySize = Int(min(request.maximumEncryptionKeySize, response.maximumEncryptionKeySize))
        guard keySize >= Int(configuration.minimumKeySize) else {
            return actions + fail(.encryptionKeySize, "a \(keySize)-octet key is below the \(configuration.minimumKeySize) required")
        }
        secureConnections = configuration.secureConnections && request.authentication.contains(.secureConnections)
            && response.authentication.contains(.secureConnections)
        guard let method = SMPPairingMethod.select(initiator: request, responder: response, secureConnections: secureConnections) else {
            return actions + fail(.oobNotAvailable, "out-of-band data is not supported")
        }
        self.method = method
        var out = actions
        if case .passkeyEntry(let initiatorDisplays, let responderDisplays) = method {
            if role == .initiator ? initiatorDisplays : responderDisplays {
                let value = random(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000
                passkey = value
                out.append(.displayPasskey(value))
            } else {
                waitingForPasskey = true
                out.append(.enterPasskey)
            }
        }
        if secureConnections {
            phase = .publicKey
            if role == .initiator { out.append(.send(publicKeyPDU)) }
        } else {
            phase = .legacyConfirm
            if method == .justWorks { tk = [UInt8](repeating: 0, count: 16) } else if let passkey { tk = Self.value128(passkey) }
            if role == .initiator, tk != nil { out += sendLegacyConfirm() }
        }
        return out
    }

    /// A passkey arrived from the user: the step that waited for it.
    private mutating func passkeyKnown() -> [SMPPairingAction] {
        guard let passkey else { return [] }
        if !secureConnections {
            tk = Self.value128(passkey)
            if role == .initiator, phase == .legacyConfirm, !localConfirmSent { return sendLegacyConfirm() }
            if role == .responder, phase == .legacyConfirm, peerConfirm != nil { return sendLegacyConfirm() }
            return []
        }
        if role == .initiator, phase == .confirm, !localConfirmSent { return sendPasskeyCommitment() }
        if role == .responder, phase == .confirm, peerConfirm != nil { return sendPasskeyCommitment() }
        return []
    }

    // MARK: Failing

    mutating func fail(_ reason: SMPPairingFailedReason, _ detail: String) -> [SMPPairingAction] {
        phase = .finished
        return [.send(.pairingFailed(reason)), .failed(.failedLocally(reason, detail: detail))]
    }

    mutating func unexpected(_ code: SMPCommandCode) -> [SMPPairingAction] {
        fail(.unspecifiedReason, "\(code) was not expected (pairing phase: \(phase))")
    }

    // MARK: Helpers

    var publicKeyPDU: SMPPDU {
        let key = keyPair.publicKey
        return .pairingPublicKey(x: key.x, y: key.y)
    }

    /// A value as the 128-bit little-endian number SMP uses for TK and for ra/rb.
    static func value128(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
            + [UInt8](repeating: 0, count: 12)
    }

    /// A key cut to the negotiated size: the most significant octets zeroed.
    func truncated(_ key: [UInt8]) -> [UInt8] {
        key.enumerated().map { $0.offset < keySize ? $0.element : 0 }
    }
}

/// What the owner of an `SMPPairing` does next.
package enum SMPPairingAction: Sendable, Hashable {
    /// Send this SMP PDU on CID 6 (and restart the 30 s timer).
    case send(SMPPDU)
    /// Responder: ask the user whether to pair with a peer asking for these features; answer
    /// with `accept(_:)`.
    case acceptPairing(SMPPairingFeatures)
    /// Show this six-digit passkey to the user.
    case displayPasskey(UInt32)
    /// Ask the user for the passkey the peer shows; answer with `passkeyEntered(_:)`.
    case enterPasskey
    /// Ask the user whether both devices show this number; answer with `numberConfirmed(_:)`.
    case confirmNumber(UInt32)
    /// Ask the user whether to go on with a Just Works pairing (with `confirmsJustWorks`);
    /// answer with `justWorksConfirmed(_:)`.
    case confirmJustWorks
    /// Initiator: encrypt the link with this key (LE Enable Encryption); report Encryption
    /// Change with `encryptionChanged(status:)`.
    case startEncryption(LongTermKey)
    case completed(SMPPairingResult)
    case failed(SMPPairingError)
}
