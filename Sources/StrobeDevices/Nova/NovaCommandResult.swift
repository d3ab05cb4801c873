/// How a Nova command ended. The reference SDK reports only success or failure (`true`/`false`);
/// the failure here says why.
package enum NovaCommandResult: Sendable, Hashable {
    /// The flash acked the command.
    case acknowledged
    /// The command did not complete; the failure says why.
    case failed(NovaCommandFailure)

    /// `true` for `.acknowledged`: the reference SDK's `true` callback.
    package var succeeded: Bool { self == .acknowledged }
}

/// Why a Nova command failed; what `NovaFlash`'s commands throw.
public enum NovaCommandFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// No ack within the ack timeout; the queue moved on.
    case ackTimeout
    /// The link went down while the command was pending or queued.
    case disconnected
    /// The flash broke the protocol; the queue asked for a disconnect and failed everything.
    case protocolViolation(NovaProtocolViolation)
    /// Enqueued after the queue had closed (disconnected or violated).
    case notConnected
    /// Armed for a trigger and withdrawn unwritten: another command or request needed the flash
    /// first, or the armed write could not go out.
    case withdrawn

    /// A one-line message that says why the command failed.
    public var description: String {
        switch self {
        case .ackTimeout: "no ack from the flash in time"
        case .disconnected: "the flash disconnected"
        case .protocolViolation(let violation): "the flash broke the protocol: \(violation)"
        case .notConnected: "the flash is not connected"
        case .withdrawn: "the armed command was withdrawn before it was written"
        }
    }
}

/// Why a queue gave up on a connection.
public enum NovaProtocolViolation: Sendable, Hashable, CustomStringConvertible {
    /// The response could not be decoded.
    case malformedResponse(NovaDecodingError)
    /// An ack for another request than the one pending.
    case unexpectedAck(expected: UInt16, received: UInt16)
    /// An ack while no request was pending.
    case ackWithoutRequest(received: UInt16)

    /// A one-line message with the decoding error or the request ids involved.
    public var description: String {
        switch self {
        case .malformedResponse(let error): "\(error)"
        case .unexpectedAck(let expected, let received): "ack for request \(received), expected \(expected)"
        case .ackWithoutRequest(let received): "ack for request \(received) while none was pending"
        }
    }
}
