/// The Security Manager (CID 6) until pairing exists: every Pairing Request and Security Request
/// is answered with Pairing Failed, reason Pairing Not Supported (Core Vol 3, Part H, 3.5.5).
public enum SMPPairingNotSupported {
    public static let pairingRequest: UInt8 = 0x01
    public static let pairingFailed: UInt8 = 0x05
    public static let securityRequest: UInt8 = 0x0B
    public static let reasonPairingNotSupported: UInt8 = 0x05

    /// The answer to an SMP PDU, or `nil` when none is due (anything but a request to pair).
    public static func answer(to pdu: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let code = pdu.first, code == pairingRequest || code == securityRequest else { return nil }
        return [pairingFailed, reasonPairingNotSupported]
    }
}
