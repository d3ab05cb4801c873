import StrobeHCI

/// One ATT PDU made ready ahead of time by its channel: encoded into a single ACL packet, with a
/// controller buffer held for it. Sending it takes no lock and allocates nothing.
public protocol ATTArmedPacket: AnyObject, Sendable {
    /// Claims the link's sending side for one packet; fails while another PDU is part-way out
    /// (its fragments must not be split). Never waits. A success is followed by `releaseLink()`.
    func tryClaimLink() -> Bool
    func releaseLink()
    /// Writes the packet to the transport (once, with the link claimed). On failure the held
    /// buffer is given back.
    func send() throws(HCIError)
    /// Gives the held buffer back unsent. Idempotent.
    func release()
}
