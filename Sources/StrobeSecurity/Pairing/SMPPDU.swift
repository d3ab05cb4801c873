import StrobeHCI

/// One Security Manager Protocol PDU (Core Specification Vol 3, Part H, 3.3 to 3.6), described
/// once: the pairing machine sends and reads these, the link encodes them on CID 6, and a
/// capture shows them through `fields`. Keys in it are never printed.
package enum SMPPDU: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    case pairingRequest(SMPPairingFeatures)
    case pairingResponse(SMPPairingFeatures)
    /// Mconfirm or Sconfirm, 16 octets.
    case pairingConfirm([UInt8])
    /// Mrand or Srand, 16 octets.
    case pairingRandom([UInt8])
    case pairingFailed(SMPPairingFailedReason)
    /// The LTK, 16 octets.
    case encryptionInformation(ltk: [UInt8])
    case centralIdentification(ediv: UInt16, rand: UInt64)
    /// The IRK, 16 octets.
    case identityInformation(irk: [UInt8])
    case identityAddressInformation(IdentityAddress)
    /// The CSRK, 16 octets.
    case signingInformation(csrk: [UInt8])
    case securityRequest(SMPAuthenticationRequirements)
    /// The P-256 public key's coordinates, 32 octets each, least significant first.
    case pairingPublicKey(x: [UInt8], y: [UInt8])
    /// Ea or Eb, 16 octets.
    case pairingDHKeyCheck([UInt8])
    /// Notification_Type: 0 entry started, 1 digit entered, 2 digit erased, 3 cleared, 4 completed.
    case pairingKeypressNotification(UInt8)

    package var code: SMPCommandCode {
        switch self {
        case .pairingRequest: .pairingRequest
        case .pairingResponse: .pairingResponse
        case .pairingConfirm: .pairingConfirm
        case .pairingRandom: .pairingRandom
        case .pairingFailed: .pairingFailed
        case .encryptionInformation: .encryptionInformation
        case .centralIdentification: .centralIdentification
        case .identityInformation: .identityInformation
        case .identityAddressInformation: .identityAddressInformation
        case .signingInformation: .signingInformation
        case .securityRequest: .securityRequest
        case .pairingPublicKey: .pairingPublicKey
        case .pairingDHKeyCheck: .pairingDHKeyCheck
        case .pairingKeypressNotification: .pairingKeypressNotification
        }
    }

    /// The PDU on the wire: the code, then exactly `code.parameterLength` octets. A value of
    /// another length is a bug of the caller's (checked in debug builds); in release it is cut or
    /// padded with zeros, so what goes out is always well formed.
    package var encoded: [UInt8] {
        var parameters: [UInt8]
        switch self {
        case .pairingRequest(let features), .pairingResponse(let features):
            parameters = [features.ioCapability.rawValue, features.oobDataPresent ? 1 : 0, features.authentication.rawValue,
                          features.maximumEncryptionKeySize, features.initiatorKeys.rawValue, features.responderKeys.rawValue]
        case .pairingConfirm(let value), .pairingRandom(let value), .pairingDHKeyCheck(let value),
             .encryptionInformation(let value), .identityInformation(let value), .signingInformation(let value):
            parameters = value
        case .pairingFailed(let reason):
            parameters = [reason.rawValue]
        case .centralIdentification(let ediv, let rand):
            parameters = [UInt8(ediv & 0xFF), UInt8(ediv >> 8)] + (0..<8).map { UInt8(truncatingIfNeeded: rand >> (8 * UInt64($0))) }
        case .identityAddressInformation(let identity):
            parameters = [identity.isRandom ? 1 : 0] + identity.address.wireBytes
        case .securityRequest(let requirements):
            parameters = [requirements.rawValue]
        case .pairingPublicKey(let x, let y):
            parameters = Self.fitted(x, 32) + Self.fitted(y, 32)
        case .pairingKeypressNotification(let type):
            parameters = [type]
        }
        assert(parameters.count == code.parameterLength, "\(code.name) built with \(parameters.count) octets")
        return [code.rawValue] + Self.fitted(parameters, code.parameterLength)
    }

    /// Reads one PDU. Throws when it is empty, its code is not defined, its length is not its
    /// command's, or a value is outside what the specification allows (reserved IO capability,
    /// OOB flag or identity address type, a key size outside 7...16); reserved bits are dropped.
    package init(decoding pdu: [UInt8]) throws(SMPPDUError) {
        guard let first = pdu.first else { throw .empty }
        guard let code = SMPCommandCode(rawValue: first) else { throw .undefinedCode(first) }
        let p = Array(pdu.dropFirst())
        guard p.count == code.parameterLength else { throw .wrongLength(code, length: p.count) }
        switch code {
        case .pairingRequest, .pairingResponse:
            let features: SMPPairingFeatures
            do throws(SMPPairingError) {
                features = try SMPPairingFeatures(parameters: p)
            } catch {
                throw .invalid(code, "\(error)")
            }
            self = code == .pairingRequest ? .pairingRequest(features) : .pairingResponse(features)
        case .pairingConfirm: self = .pairingConfirm(p)
        case .pairingRandom: self = .pairingRandom(p)
        case .pairingFailed: self = .pairingFailed(SMPPairingFailedReason(rawValue: p[0]))
        case .encryptionInformation: self = .encryptionInformation(ltk: p)
        case .centralIdentification:
            self = .centralIdentification(ediv: UInt16(p[0]) | UInt16(p[1]) << 8,
                                          rand: p[2..<10].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        case .identityInformation: self = .identityInformation(irk: p)
        case .identityAddressInformation:
            guard p[0] <= 1, let address = BluetoothAddress(wireBytes: p[1..<7]) else {
                throw .invalid(code, "Identity Address Information has address type 0x\(String(p[0], radix: 16))")
            }
            self = .identityAddressInformation(IdentityAddress(address: address, isRandom: p[0] == 1))
        case .signingInformation: self = .signingInformation(csrk: p)
        case .securityRequest: self = .securityRequest(SMPAuthenticationRequirements(rawValue: p[0]).intersection(.defined))
        case .pairingPublicKey: self = .pairingPublicKey(x: Array(p[0..<32]), y: Array(p[32..<64]))
        case .pairingDHKeyCheck: self = .pairingDHKeyCheck(p)
        case .pairingKeypressNotification: self = .pairingKeypressNotification(p[0])
        }
    }

    /// Each parameter by its name in the specification, as a capture shows it: the keys a PDU
    /// distributes (LTK, EDIV and Rand, IRK, CSRK) by their length only.
    package var fields: [(name: String, value: String)] {
        func byte(_ value: UInt8) -> String { (value < 0x10 ? "0" : "") + String(value, radix: 16) }
        func hex(_ bytes: [UInt8]) -> String { bytes.map(byte).joined() }
        func hidden(_ bytes: Int) -> String { "(\(bytes) bytes of key material, not shown)" }
        switch self {
        case .pairingRequest(let f), .pairingResponse(let f):
            return [("IO_Capability", "\(f.ioCapability)"), ("OOB_Data_Flag", f.oobDataPresent ? "present" : "not present"),
                    ("AuthReq", "0x" + byte(f.authentication.rawValue)),
                    ("Maximum_Encryption_Key_Size", "\(f.maximumEncryptionKeySize)"),
                    ("Initiator_Key_Distribution", "0x" + byte(f.initiatorKeys.rawValue)),
                    ("Responder_Key_Distribution", "0x" + byte(f.responderKeys.rawValue))]
        case .pairingConfirm(let value): return [("Confirm_Value", hex(value))]
        case .pairingRandom(let value): return [("Random_Value", hex(value))]
        case .pairingFailed(let reason): return [("Reason", "\(reason)")]
        case .encryptionInformation(let ltk): return [("Long_Term_Key", hidden(ltk.count))]
        case .centralIdentification: return [("EDIV", hidden(2)), ("Rand", hidden(8))]
        case .identityInformation(let irk): return [("Identity_Resolving_Key", hidden(irk.count))]
        case .identityAddressInformation(let identity):
            return [("AddrType", identity.isRandom ? "random" : "public"), ("BD_ADDR", "\(identity.address)")]
        case .signingInformation(let csrk): return [("Signature_Key", hidden(csrk.count))]
        case .securityRequest(let requirements): return [("AuthReq", "0x" + byte(requirements.rawValue))]
        case .pairingPublicKey(let x, let y): return [("Public_Key_X", hex(x)), ("Public_Key_Y", hex(y))]
        case .pairingDHKeyCheck(let value): return [("DHKey_Check", hex(value))]
        case .pairingKeypressNotification(let type): return [("Notification_Type", "\(type)")]
        }
    }

    /// The command's name and its fields, keys by length only: safe for logs.
    package var description: String {
        "\(code.name)(" + fields.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + ")"
    }

    /// As `description`: no key in a debug print either.
    package var debugDescription: String { description }

    private static func fitted(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.count == length ? bytes : Array((bytes + [UInt8](repeating: 0, count: length)).prefix(length))
    }
}

/// Why bytes on CID 6 are no SMP PDU; `reason` is what Pairing Failed answers with.
package enum SMPPDUError: Error, Sendable, Hashable, CustomStringConvertible {
    case empty
    case undefinedCode(UInt8)
    case wrongLength(SMPCommandCode, length: Int)
    case invalid(SMPCommandCode, String)

    /// Command Not Supported for a code the specification does not define, Invalid Parameters
    /// for the rest.
    package var reason: SMPPairingFailedReason {
        if case .undefinedCode = self { return .commandNotSupported }
        return .invalidParameters
    }

    package var description: String {
        switch self {
        case .empty: "an empty SMP PDU"
        case .undefinedCode(let code): "SMP command code 0x\(String(code, radix: 16)) is not defined"
        case .wrongLength(let code, let length): "\(code) carries \(code.parameterLength) octets, not \(length)"
        case .invalid(_, let detail): detail
        }
    }
}
