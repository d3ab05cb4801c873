/// What the ATT bearer sends through: the L2CAP fixed channel 0x0004 of one LE connection.
/// Inbound PDUs go the other way, into `ATTBearer.receive(_:at:)`.
package protocol ATTChannel: AnyObject, Sendable {
    /// The largest ATT PDU the channel carries in each direction (its SDU limit); the bearer
    /// never announces a larger MTU.
    var maximumPayload: Int { get }
    /// Sends one whole ATT PDU: returns once it is with the controller (waiting for controller
    /// buffers, never dropping), or throws when the link is gone.
    func send(_ pdu: [UInt8]) async throws
    /// Queues one PDU behind everything queued before it and returns at once: for what is sent
    /// from the receive path (answers, confirmations) and for requests, which keep their order.
    /// `completion`, when given, hears whether it went out.
    func post(_ pdu: [UInt8], completion: (@Sendable (Result<Void, any Error>) -> Void)?)
    /// Makes `pdu` ready to go out later in one write, with a controller buffer held for it; `nil`
    /// when the channel cannot (the PDU needs more than one packet, no buffer is free, or the
    /// channel does not prepare PDUs).
    func prepare(_ pdu: [UInt8]) -> (any ATTPreparedPDU)?
}

extension ATTChannel {
    package func prepare(_ pdu: [UInt8]) -> (any ATTPreparedPDU)? { nil }
}

/// One PDU made ready ahead of time by its channel: encoded whole, with a controller buffer held
/// for it. Sending it takes no lock and allocates nothing.
package protocol ATTPreparedPDU: AnyObject, Sendable {
    /// Puts the PDU on the wire now, once: takes the link (refused while it is part-way through
    /// another PDU, whose fragments must not be split), asks `commit` whether to go ahead (the
    /// owner's last word, made with the link held), then writes. No lock, no allocation.
    func send(committing commit: () -> Bool) -> ATTPreparedSendResult
    /// Reads what `send` reads first (for an L2CAP packet: the write claim, whether the packet
    /// was taken, its first and last bytes), changing nothing, and returns what it read (so that
    /// the loads stay): a trigger after a long quiet then finds them in cache. Safe on any
    /// thread, during a `send` too.
    func warm() -> UInt
    /// Gives the held buffer back unsent. Idempotent; harmless after `send`.
    func discard()
}

/// What became of a prepared PDU's send.
package enum ATTPreparedSendResult: Sendable, Equatable {
    /// On the wire.
    case sent
    /// The link was part-way through another PDU: nothing happened; the PDU is still ready.
    case linkBusy
    /// `commit` said no: nothing happened.
    case declined
    /// The write failed; the held buffer went back and the PDU cannot be sent any more.
    case failed
}
