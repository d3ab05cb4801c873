/// Why an LE credit-based channel could not be opened or used.
public enum L2CAPChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer refused the connection.
    case refused(L2CAPCreditBasedResult)
    /// The peer answered the request with Command Reject (it has no credit-based channels).
    case commandRejected(reason: UInt16)
    /// The peer did not answer within the signalling timeout.
    case timeout(after: Duration)
    /// MTU or MPS outside the ranges of Core Vol 3, Part A, 4.22, or an SPSM outside 0x0001-0x00FF.
    case invalidParameters(String)
    /// All 64 dynamic channel identifiers of the link are in use.
    case noFreeChannelID
    /// An SDU longer than the peer's MTU.
    case sduTooLong(length: Int, peerMTU: Int)
    /// The channel is closed.
    case notOpen
    /// The peer broke the channel's rules and it was disconnected.
    case violation(L2CAPChannelViolation)
    /// The ACL link ended.
    case linkClosed
    /// Another task or a receive handler is already reading the channel's SDUs.
    case alreadyReading

    /// A one-line explanation, e.g. `the peer refused the channel: SPSM not supported (0x0002)`.
    public var description: String {
        switch self {
        case .refused(let result): "the peer refused the channel: \(result)"
        case .commandRejected(let reason): "the peer rejected the request (reason \(l2capHex(reason))): it has no credit-based channels"
        case .timeout(let after): "the peer did not answer within \(after)"
        case .invalidParameters(let what): "invalid channel parameters: \(what)"
        case .noFreeChannelID: "no free channel identifier on this link"
        case .sduTooLong(let length, let peerMTU): "an SDU of \(length) bytes exceeds the peer's MTU of \(peerMTU)"
        case .notOpen: "the channel is closed"
        case .violation(let violation): "the channel was disconnected: \(violation)"
        case .linkClosed: "the link ended"
        case .alreadyReading: "another task or a receive handler is already reading the channel's SDUs"
        }
    }
}
