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
    /// The peer sent a K-frame without a credit; the channel was disconnected.
    case kFrameWithoutCredit
    /// The peer sent a K-frame longer than this side's MPS; the channel was disconnected.
    case kFrameExceedsMPS(length: Int, mps: Int)
    /// An SDU's first K-frame was too short for its 2-byte SDU length; the channel was disconnected.
    case truncatedFirstKFrame(length: Int)
    /// The peer announced an SDU longer than this side's MTU; the channel was disconnected.
    case sduExceedsMTU(length: Int, mtu: Int)
    /// An SDU's K-frames carried more than its announced length; the channel was disconnected.
    case sduOverrun(expected: Int, received: Int)
    /// The peer's credits would pass 65535; the channel was disconnected.
    case creditOverflow(held: Int, added: Int)
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
        case .kFrameWithoutCredit: "the channel was disconnected: a K-frame came without a credit"
        case .kFrameExceedsMPS(let length, let mps): "the channel was disconnected: a K-frame of \(length) bytes exceeds the MPS of \(mps)"
        case .truncatedFirstKFrame(let length):
            "the channel was disconnected: an SDU's first K-frame has \(length) bytes, too few for its length"
        case .sduExceedsMTU(let length, let mtu): "the channel was disconnected: an SDU of \(length) bytes exceeds the MTU of \(mtu)"
        case .sduOverrun(let expected, let received):
            "the channel was disconnected: an SDU announced as \(expected) bytes carried \(received)"
        case .creditOverflow(let held, let added): "the channel was disconnected: \(added) credits on top of \(held) exceed 65535"
        case .linkClosed: "the link ended"
        case .alreadyReading: "another task or a receive handler is already reading the channel's SDUs"
        }
    }
}
