/// A peer breaking the rules of an LE credit-based channel (Core Vol 3, Part A, 3.4 and 10.1):
/// the channel is disconnected (the ACL link stays up) and the app hears which rule it broke, as
/// the matching `L2CAPChannelError` case.
package enum L2CAPChannelViolation: Sendable, Hashable, CustomStringConvertible {
    /// A K-frame came when the peer had no credit left.
    case kFrameWithoutCredit
    /// A K-frame's information payload was longer than the MPS this side announced.
    case kFrameExceedsMPS(length: Int, mps: Int)
    /// An SDU's first K-frame was too short to hold the SDU length.
    case truncatedFirstKFrame(length: Int)
    /// An SDU announced a length above the MTU this side announced.
    case sduExceedsMTU(length: Int, mtu: Int)
    /// The K-frames of an SDU carried more than its announced length.
    case sduOverrun(expected: Int, received: Int)
    /// An LE Flow Control Credit would have taken this side's credits past 65535.
    case creditOverflow(held: Int, added: Int)

    /// A one-line explanation, e.g. `a K-frame came without a credit`.
    package var description: String {
        switch self {
        case .kFrameWithoutCredit: "a K-frame came without a credit"
        case .kFrameExceedsMPS(let length, let mps): "a K-frame of \(length) bytes exceeds the MPS of \(mps)"
        case .truncatedFirstKFrame(let length): "an SDU's first K-frame has \(length) bytes, too few for its length"
        case .sduExceedsMTU(let length, let mtu): "an SDU of \(length) bytes exceeds the MTU of \(mtu)"
        case .sduOverrun(let expected, let received): "an SDU announced as \(expected) bytes carried \(received)"
        case .creditOverflow(let held, let added): "\(added) credits on top of \(held) exceed 65535"
        }
    }
}
