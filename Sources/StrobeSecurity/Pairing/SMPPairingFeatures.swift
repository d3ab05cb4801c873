/// The six parameters of Pairing Request and Pairing Response (Core Specification Vol 3,
/// Part H, 3.5.1 and 3.5.2).
package struct SMPPairingFeatures: Sendable, Hashable {
    package var ioCapability: SMPIOCapability
    package var oobDataPresent: Bool
    package var authentication: SMPAuthenticationRequirements
    /// 7 ... 16 octets.
    package var maximumEncryptionKeySize: UInt8
    package var initiatorKeys: SMPKeyDistribution
    package var responderKeys: SMPKeyDistribution

    package init(ioCapability: SMPIOCapability, oobDataPresent: Bool = false, authentication: SMPAuthenticationRequirements,
                maximumEncryptionKeySize: UInt8 = 16, initiatorKeys: SMPKeyDistribution, responderKeys: SMPKeyDistribution) {
        self.ioCapability = ioCapability
        self.oobDataPresent = oobDataPresent
        self.authentication = authentication
        self.maximumEncryptionKeySize = maximumEncryptionKeySize
        self.initiatorKeys = initiatorKeys
        self.responderKeys = responderKeys
    }

    /// Parses the parameters after the code. A value out of the spec's range is Invalid
    /// Parameters; reserved bits are dropped.
    package init(parameters p: [UInt8]) throws(SMPPairingError) {
        guard p.count == 6 else { throw .malformed("Pairing Request/Response parameters are 6 octets, not \(p.count)") }
        guard let io = SMPIOCapability(rawValue: p[0]) else { throw .malformed("IO_Capability 0x\(String(p[0], radix: 16)) is reserved") }
        guard p[1] <= 1 else { throw .malformed("OOB_Data_Flag 0x\(String(p[1], radix: 16)) is reserved") }
        guard (7...16).contains(p[3]) else { throw .malformed("Maximum_Encryption_Key_Size \(p[3]) is outside 7...16") }
        ioCapability = io
        oobDataPresent = p[1] == 1
        authentication = SMPAuthenticationRequirements(rawValue: p[2]).intersection(.defined)
        maximumEncryptionKeySize = p[3]
        initiatorKeys = SMPKeyDistribution(rawValue: p[4]).intersection(.supported)
        responderKeys = SMPKeyDistribution(rawValue: p[5]).intersection(.supported)
    }

    /// IOcap of f6: AuthReq, OOB data flag, IO capability, least significant octet first.
    var ioCap: [UInt8] { [ioCapability.rawValue, oobDataPresent ? 1 : 0, authentication.rawValue] }
}
