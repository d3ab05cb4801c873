import Foundation
import Testing

import StrobeCapture
import StrobeHCI
import StrobeSecurity

/// Every SMP PDU, from its one description, through the encoder, the decoder the pairing machine
/// reads with, and a capture.
@Suite struct SMPPDUCaptureTests {
    static let key: [UInt8] = Array(0xA0...0xAF)

    /// One PDU of each command; the switch has no default, so a new command needs one here.
    static func example(_ code: SMPCommandCode) -> SMPPDU {
        let features = SMPPairingFeatures(ioCapability: .keyboardDisplay, authentication: [.bonding, .mitm, .secureConnections],
                                          maximumEncryptionKeySize: 16, initiatorKeys: [.encryptionKey, .identityKey],
                                          responderKeys: [.encryptionKey, .identityKey, .signingKey])
        return switch code {
        case .pairingRequest: .pairingRequest(features)
        case .pairingResponse: .pairingResponse(features)
        case .pairingConfirm: .pairingConfirm(Array(0x10...0x1F))
        case .pairingRandom: .pairingRandom(Array(0x20...0x2F))
        case .pairingFailed: .pairingFailed(.confirmValueFailed)
        case .encryptionInformation: .encryptionInformation(ltk: key)
        case .centralIdentification: .centralIdentification(ediv: 0xA1B2, rand: 0xA0A1_A2A3_A4A5_A6A7)
        case .identityInformation: .identityInformation(irk: key)
        case .identityAddressInformation:
            .identityAddressInformation(IdentityAddress(address: BluetoothAddress("C4:5E:00:00:00:09")!, isRandom: true))
        case .signingInformation: .signingInformation(csrk: key)
        case .securityRequest: .securityRequest([.bonding, .mitm])
        case .pairingPublicKey: .pairingPublicKey(x: Array(repeating: 0x11, count: 32), y: Array(repeating: 0x22, count: 32))
        case .pairingDHKeyCheck: .pairingDHKeyCheck(Array(0x30...0x3F))
        case .pairingKeypressNotification: .pairingKeypressNotification(1)
        }
    }

    @Test(arguments: SMPCommandCode.allCases)
    func encodesAndDecodesAsItsCommandSays(_ code: SMPCommandCode) throws {
        let pdu = Self.example(code)
        #expect(pdu.code == code)
        let bytes = pdu.encoded
        #expect(bytes.first == code.rawValue)
        #expect(bytes.count == 1 + code.parameterLength)
        #expect(try SMPPDU(decoding: bytes) == pdu)
        // One octet short or long is refused by its length, not read past.
        #expect(throws: SMPPDUError.wrongLength(code, length: code.parameterLength - 1)) { try SMPPDU(decoding: Array(bytes.dropLast())) }
        #expect(throws: SMPPDUError.wrongLength(code, length: code.parameterLength + 1)) { try SMPPDU(decoding: bytes + [0]) }
    }

    @Test func undefinedCodesAndValuesOutOfRangeAreRefused() {
        #expect(throws: SMPPDUError.empty) { try SMPPDU(decoding: []) }
        #expect(throws: SMPPDUError.undefinedCode(0x0F)) { try SMPPDU(decoding: [0x0F]) }
        #expect(SMPPDUError.undefinedCode(0x0F).reason == .commandNotSupported)
        // Maximum_Encryption_Key_Size 6; an identity address of type 2.
        #expect(throws: SMPPDUError.self) { try SMPPDU(decoding: [0x01, 0x03, 0x00, 0x01, 6, 0x00, 0x00]) }
        let identity: [UInt8] = [0x09, 0x02, 0x09, 0x00, 0x00, 0x00, 0x5E, 0xC4]
        #expect(throws: SMPPDUError.invalid(.identityAddressInformation, "Identity Address Information has address type 0x2")) {
            try SMPPDU(decoding: identity)
        }
    }

    /// Each PDU in a capture, as an ACL packet on CID 6, shows its command's name and its fields;
    /// the keys distributed show their length, never their bytes.
    @Test func aCaptureShowsEveryPDUByFieldAndNoKey() throws {
        let path = try Fixtures.scratchPath("capture-smp-\(UUID().uuidString).btsnoop")
        defer { Fixtures.remove(path) }
        let writer = try BtsnoopWriter(path: path)
        let at = BtsnoopTimestamp(unixMicroseconds: 1_700_000_000_000_000)
        for code in SMPCommandCode.allCases {
            let pdu = Self.example(code).encoded
            let l2cap = [UInt8(pdu.count), 0x00, 0x06, 0x00] + pdu
            try writer.write(.acl, direction: .hostToController, payload: [0x40, 0x20, UInt8(l2cap.count), 0x00] + l2cap, at: at)
        }
        try writer.close()
        let decoder = try CaptureRecordDecoder(path: path)
        let keyText = Self.key.map { String(format: "%02x", $0) }.joined()
        for code in SMPCommandCode.allCases {
            let record = try #require(try decoder.next())
            let layer = try #require(record.layers.last)
            #expect(record.smpCode == code.rawValue)
            #expect(layer.title == "SMP: \(code.name) (0x\(String(format: "%02X", code.rawValue))) len \(1 + code.parameterLength)")
            #expect(layer.fields == Self.example(code).fields.map { DecodedRecord.Field(name: $0.name, value: $0.value) })
            #expect(!record.text.lowercased().contains(keyText), "\(code.name)")
            // Nor in the PDU's own text, or an action that carries it.
            for text in ["\(Self.example(code))", String(reflecting: SMPPairingAction.send(Self.example(code)))] {
                #expect(!text.lowercased().contains(keyText) && !text.contains("160, 161, 162"), "\(text)")
            }
            if code.distributesKey {
                #expect(layer.fields.allSatisfy { $0.value.contains("key material, not shown") }, "\(code.name)")
            }
        }
    }
}
