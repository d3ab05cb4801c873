/// Pairing phase 2: confirm and random values (LE legacy pairing, Vol 3, Part H, 2.3.5.5; LE
/// Secure Connections, 2.3.5.6), the DHKey check, and the key the link is encrypted with.
extension SMPPairing {
    mutating func receiveConfirm(_ value: [UInt8]) -> [SMPPairingAction] {
        if !secureConnections {
            guard phase == .legacyConfirm, peerConfirm == nil, role == .responder || localConfirmSent else {
                return unexpected(.pairingConfirm)
            }
            peerConfirm = value
            if role == .initiator {
                phase = .legacyRandom
                return [.send(.pairingRandom(localRandom))]
            }
            return tk == nil ? [] : sendLegacyConfirm()
        }
        guard phase == .confirm, peerConfirm == nil else { return unexpected(.pairingConfirm) }
        if role == .responder {
            // Passkey Entry only: the initiator commits first in each round.
            peerConfirm = value
            return passkey == nil ? [] : sendPasskeyCommitment()
        }
        if case .passkeyEntry = method {
            guard localConfirmSent else { return unexpected(.pairingConfirm) }
        } else {
            localRandom = random(16)
        }
        peerConfirm = value
        phase = .random
        return [.send(.pairingRandom(localRandom))]
    }

    mutating func receiveRandom(_ value: [UInt8]) -> [SMPPairingAction] {
        if !secureConnections {
            guard phase == .legacyRandom else { return unexpected(.pairingRandom) }
            return receiveLegacyRandom(value)
        }
        guard phase == .random else { return unexpected(.pairingRandom) }
        peerRandom = value
        return role == .initiator ? initiatorReceivedNonce() : responderReceivedNonce()
    }

    // MARK: LE legacy pairing

    /// Mconfirm or Sconfirm = c1(TK, random, preq, pres, iat, rat, ia, ra).
    mutating func sendLegacyConfirm() -> [SMPPairingAction] {
        localRandom = random(16)
        guard let confirm = legacyConfirm(localRandom) else { return fail(.unspecifiedReason, "c1 could not be computed") }
        localConfirmSent = true
        if role == .responder { phase = .legacyRandom }
        return [.send(.pairingConfirm(confirm))]
    }

    private func legacyConfirm(_ r: [UInt8]) -> [UInt8]? {
        guard let tk, let request, let response else { return nil }
        return try? SMPCrypto.c1(tk, r: r, preq: SMPPDU.pairingRequest(request).encoded, pres: SMPPDU.pairingResponse(response).encoded,
                                 iat: addresses.iat, rat: addresses.rat,
                                 ia: addresses.initiator.wireBytes, ra: addresses.responder.wireBytes)
    }

    private mutating func receiveLegacyRandom(_ value: [UInt8]) -> [SMPPairingAction] {
        guard let tk, let expected = legacyConfirm(value), expected == peerConfirm else {
            return fail(.confirmValueFailed, "the peer's random value does not match its confirm value")
        }
        // STK = s1(TK, Srand, Mrand).
        let (srand, mrand) = role == .initiator ? (value, localRandom) : (localRandom, value)
        guard let stk = try? SMPCrypto.s1(tk, r1: srand, r2: mrand) else { return fail(.unspecifiedReason, "s1 could not be computed") }
        let key = LongTermKey(value: truncated(stk), keySize: keySize)
        pairingKey = key
        phase = .encryption
        if role == .initiator { return [.startEncryption(key)] }
        return [.send(.pairingRandom(localRandom))]
    }

    // MARK: LE Secure Connections

    mutating func receivePublicKey(x: [UInt8], y: [UInt8]) -> [SMPPairingAction] {
        do throws(SMPKeyAgreement.Failure) {
            dhKey = try keyPair.dhKey(peerX: x, peerY: y)
        } catch {
            return fail(.dhKeyCheckFailed, "\(error)")
        }
        peerPublicKey = (x, y)
        var out: [SMPPairingAction] = role == .responder ? [.send(publicKeyPDU)] : []
        phase = .confirm
        switch method {
        case .passkeyEntry:
            passkeyRound = 0
            if role == .initiator, passkey != nil { out += sendPasskeyCommitment() }
        case .justWorks, .numericComparison:
            if role == .responder {
                // Cb = f4(PKbx, PKax, Nb, 0), sent at once; the initiator answers with Na.
                localRandom = random(16)
                guard let cb = try? SMPCrypto.f4(u: keyPair.publicKey.x, v: x, x: localRandom, z: 0) else {
                    return fail(.unspecifiedReason, "f4 could not be computed")
                }
                phase = .random
                out.append(.send(.pairingConfirm(cb)))
            }
        }
        return out
    }

    /// Passkey Entry, one round of 20: this side's commitment to bit `passkeyRound` of the
    /// passkey, Cai = f4(PKax, PKbx, Nai, 0x80 | rai) (or Cbi with the keys swapped).
    mutating func sendPasskeyCommitment() -> [SMPPairingAction] {
        guard let passkey, let peer = peerPublicKey else { return [] }
        localRandom = random(16)
        let z = 0x80 | UInt8(passkey >> UInt32(passkeyRound) & 1)
        guard let c = try? SMPCrypto.f4(u: keyPair.publicKey.x, v: peer.x, x: localRandom, z: z) else {
            return fail(.unspecifiedReason, "f4 could not be computed")
        }
        localConfirmSent = true
        if role == .responder { phase = .random }
        return [.send(.pairingConfirm(c))]
    }

    /// Whether the peer's confirm value opens to its nonce.
    private func peerCommitmentHolds() -> Bool {
        guard let peer = peerPublicKey, let peerConfirm else { return false }
        var z: UInt8 = 0
        if case .passkeyEntry = method, let passkey { z = 0x80 | UInt8(passkey >> UInt32(passkeyRound) & 1) }
        return (try? SMPCrypto.f4(u: peer.x, v: keyPair.publicKey.x, x: peerRandom, z: z)) == peerConfirm
    }

    private mutating func initiatorReceivedNonce() -> [SMPPairingAction] {
        guard peerCommitmentHolds() else { return fail(.confirmValueFailed, "the peer's nonce does not match its confirm value") }
        switch method {
        case .passkeyEntry:
            passkeyRound += 1
            guard passkeyRound == 20 else {
                peerConfirm = nil
                localConfirmSent = false
                phase = .confirm
                return sendPasskeyCommitment()
            }
            return sendDHKeyCheck()
        case .numericComparison:
            phase = .dhKeyCheck
            return [.confirmNumber(comparisonNumber())]
        case .justWorks:
            guard configuration.confirmsJustWorks else { return sendDHKeyCheck() }
            phase = .dhKeyCheck
            return [.confirmJustWorks]
        }
    }

    private mutating func responderReceivedNonce() -> [SMPPairingAction] {
        switch method {
        case .passkeyEntry:
            guard peerCommitmentHolds() else { return fail(.confirmValueFailed, "the peer's nonce does not match its confirm value") }
            let out: [SMPPairingAction] = [.send(.pairingRandom(localRandom))]
            passkeyRound += 1
            if passkeyRound == 20 {
                phase = .dhKeyCheck
            } else {
                peerConfirm = nil
                localConfirmSent = false
                phase = .confirm
            }
            return out
        case .numericComparison:
            phase = .dhKeyCheck
            return [.send(.pairingRandom(localRandom)), .confirmNumber(comparisonNumber())]
        case .justWorks:
            phase = .dhKeyCheck
            let random: [SMPPairingAction] = [.send(.pairingRandom(localRandom))]
            return configuration.confirmsJustWorks ? random + [.confirmJustWorks] : random
        }
    }

    /// Va = Vb = g2(PKax, PKbx, Na, Nb) mod 10^6.
    private func comparisonNumber() -> UInt32 {
        guard let peer = peerPublicKey else { return 0 }
        let own = keyPair.publicKey.x
        let (pka, pkb) = role == .initiator ? (own, peer.x) : (peer.x, own)
        return ((try? SMPCrypto.g2(u: pka, v: pkb, x: nonces.na, y: nonces.nb)) ?? 0) % 1_000_000
    }

    private var nonces: (na: [UInt8], nb: [UInt8]) {
        role == .initiator ? (localRandom, peerRandom) : (peerRandom, localRandom)
    }

    /// ra and rb of f6: the passkey for Passkey Entry, zero otherwise.
    private var r: [UInt8] {
        if case .passkeyEntry = method, let passkey { return Self.value128(passkey) }
        return [UInt8](repeating: 0, count: 16)
    }

    /// MacKey and LTK = f5(DHKey, Na, Nb, A, B).
    private mutating func deriveKeys() -> [UInt8]? {
        guard let (mac, ltk) = try? SMPCrypto.f5(w: dhKey, n1: nonces.na, n2: nonces.nb, a1: addresses.a, a2: addresses.b) else {
            return nil
        }
        macKey = mac
        return ltk
    }

    /// Initiator: Ea = f6(MacKey, Na, Nb, rb, IOcapA, A, B).
    mutating func sendDHKeyCheck() -> [SMPPairingAction] {
        guard let request, let ltk = deriveKeys(),
              let ea = try? SMPCrypto.f6(w: macKey, n1: nonces.na, n2: nonces.nb, r: r, ioCap: request.ioCap, a1: addresses.a, a2: addresses.b)
        else { return fail(.unspecifiedReason, "f5/f6 could not be computed") }
        pairingKey = LongTermKey(value: truncated(ltk), keySize: keySize)
        localConfirmSent = true
        phase = .dhKeyCheck
        return [.send(.pairingDHKeyCheck(ea))]
    }

    mutating func receiveDHKeyCheck(_ value: [UInt8]) -> [SMPPairingAction] {
        guard peerDHKeyCheck == nil else { return unexpected(.pairingDHKeyCheck) }
        peerDHKeyCheck = value
        if role == .initiator {
            // Eb = f6(MacKey, Nb, Na, ra, IOcapB, B, A).
            guard let response, let pairingKey,
                  let eb = try? SMPCrypto.f6(w: macKey, n1: nonces.nb, n2: nonces.na, r: r, ioCap: response.ioCap, a1: addresses.b, a2: addresses.a),
                  eb == value
            else { return fail(.dhKeyCheckFailed, "the peer's DHKey check value is wrong") }
            phase = .encryption
            return [.startEncryption(pairingKey)]
        }
        if awaitsUser, !userConfirmed { return [] }
        return checkInitiatorDHKey()
    }

    /// Responder: checks Ea, answers with Eb and waits for the initiator to encrypt.
    mutating func checkInitiatorDHKey() -> [SMPPairingAction] {
        guard let request, let response, let value = peerDHKeyCheck, let ltk = deriveKeys(),
              let ea = try? SMPCrypto.f6(w: macKey, n1: nonces.na, n2: nonces.nb, r: r, ioCap: request.ioCap, a1: addresses.a, a2: addresses.b),
              let eb = try? SMPCrypto.f6(w: macKey, n1: nonces.nb, n2: nonces.na, r: r, ioCap: response.ioCap, a1: addresses.b, a2: addresses.a)
        else { return fail(.unspecifiedReason, "f5/f6 could not be computed") }
        guard ea == value else { return fail(.dhKeyCheckFailed, "the peer's DHKey check value is wrong") }
        pairingKey = LongTermKey(value: truncated(ltk), keySize: keySize)
        phase = .encryption
        return [.send(.pairingDHKeyCheck(eb))]
    }
}
