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

/// Why a Nova command failed (`NovaError.command`).
public enum NovaCommandFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// No ack within the ack timeout; the queue moved on.
    case ackTimeout
    /// The link went down while the command was pending or queued.
    case disconnected
    /// The flash broke the protocol with a response that could not be decoded; the queue asked
    /// for a disconnect and failed everything.
    case malformedResponse(NovaDecodingError)
    /// The flash broke the protocol with an ack for another request than the one pending; the
    /// queue asked for a disconnect and failed everything.
    case unexpectedAck(expected: UInt16, received: UInt16)
    /// The flash broke the protocol with an ack while no request was pending; the queue asked for
    /// a disconnect and failed everything.
    case ackWithoutRequest(received: UInt16)
    /// Enqueued after the queue had closed (disconnected or violated).
    case notConnected
    /// Armed for a trigger and withdrawn unwritten: another command or request needed the flash
    /// first, or the armed write could not go out.
    case withdrawn
    /// The request could not be written to the flash (the GATT write failed, for the reason
    /// given); the queue moved on.
    case writeFailed(String)

    /// The flash broke the protocol (a malformed response or an ack out of turn).
    public var isProtocolViolation: Bool {
        switch self {
        case .malformedResponse, .unexpectedAck, .ackWithoutRequest: true
        case .ackTimeout, .disconnected, .notConnected, .withdrawn, .writeFailed: false
        }
    }

    /// A one-line message that says why the command failed.
    public var description: String {
        switch self {
        case .ackTimeout: "no ack from the flash in time"
        case .disconnected: "the flash disconnected"
        case .malformedResponse(let error): "the flash broke the protocol: \(error)"
        case .unexpectedAck(let expected, let received):
            "the flash broke the protocol: ack for request \(received), expected \(expected)"
        case .ackWithoutRequest(let received): "the flash broke the protocol: ack for request \(received) while none was pending"
        case .notConnected: "the flash is not connected"
        case .withdrawn: "the armed command was withdrawn before it was written"
        case .writeFailed(let reason): "the request could not be written to the flash: \(reason)"
        }
    }
}
