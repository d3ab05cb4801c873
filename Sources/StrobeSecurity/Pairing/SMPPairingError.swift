/// Why pairing ended without keys. Nothing from a failed pairing is used or stored.
public enum SMPPairingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A peer's PDU did not parse (used inside the state machine, which answers with Invalid
    /// Parameters).
    case malformed(String)
    /// This host sent Pairing Failed with `reason`.
    case failedLocally(SMPPairingFailedReason, detail: String)
    /// The peer sent Pairing Failed.
    case failedByPeer(SMPPairingFailedReason)
    /// No SMP command within 30 s (Core Vol 3, Part H, 3.4): no more SMP on this link.
    case timeout
    /// The controller could not encrypt the link with the key pairing made (HCI status).
    case encryptionFailed(status: UInt8)
    /// The link went down during pairing.
    case disconnected
    /// Pairing was asked for when it cannot start (one is under way, or the SMP timer expired).
    case notAllowed(String)

    /// A one-line message with the Pairing Failed reason, HCI status or detail.
    public var description: String {
        switch self {
        case .malformed(let detail): "malformed SMP PDU: \(detail)"
        case .failedLocally(let reason, let detail): "pairing failed (\(reason)): \(detail)"
        case .failedByPeer(let reason): "the peer ended pairing: \(reason)"
        case .timeout: "pairing timed out: no SMP command within 30 s"
        case .encryptionFailed(let status): "encryption with the paired key failed (HCI status 0x\(String(status, radix: 16)))"
        case .disconnected: "the link went down during pairing"
        case .notAllowed(let why): "pairing cannot start: \(why)"
        }
    }
}
