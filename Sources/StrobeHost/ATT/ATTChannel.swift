/// What the ATT bearer sends through: the L2CAP fixed channel 0x0004 of one LE connection.
/// Inbound PDUs go the other way, into `ATTBearer.receive(_:at:)`.
public protocol ATTChannel: AnyObject, Sendable {
    /// The largest ATT PDU the channel carries in each direction (its SDU limit); the bearer
    /// never announces a larger MTU.
    var maximumPayload: Int { get }
    /// Sends one whole ATT PDU. May suspend (ACL flow control) but never drops: it returns once
    /// the PDU is queued to the controller, or throws when the link is gone.
    func send(_ pdu: [UInt8]) async throws
    /// Queues a PDU behind everything sent before it, without waiting: for answers made on the
    /// receive path (confirmations, responses), so that they keep their place relative to later
    /// requests. Returns `false` when the channel cannot queue this way; the bearer then sends
    /// the PDU from a task of its own.
    func enqueue(_ pdu: [UInt8]) -> Bool
    /// Makes `pdu` ready to go out later as one ACL packet, encoded now, with a controller buffer
    /// held for it; `nil` when the channel cannot (the PDU needs more than one packet, no buffer
    /// is free, or the channel does not arm PDUs).
    func arm(_ pdu: [UInt8]) -> (any ATTArmedPacket)?
}

extension ATTChannel {
    public func enqueue(_ pdu: [UInt8]) -> Bool { false }
}

extension ATTChannel {
    public func arm(_ pdu: [UInt8]) -> (any ATTArmedPacket)? { nil }
}
