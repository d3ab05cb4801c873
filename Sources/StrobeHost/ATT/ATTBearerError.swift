import StrobeHCI

/// Why a bearer stopped carrying transactions.
public enum ATTBearerCloseReason: Hashable, Sendable, CustomStringConvertible {
    /// The LE connection ended (HCI Disconnection Complete reason code).
    case disconnected(hciReason: UInt8)
    /// The transport under the connection closed: the controller's error says why.
    case transportClosed(HCIError)
    /// The link failed under the bearer (for example the controller stopped returning buffers);
    /// the error says why.
    case linkFailed(HCIError)
    /// A request went unanswered for the transaction timeout (Vol 3, Part F, 3.3.3): no further
    /// ATT PDUs may be sent on this bearer.
    case transactionTimeout(request: ATTOpcode)
    /// Our side closed it.
    case local

    /// A short explanation for logs, e.g. `disconnected (reason 0x13)` or `closed locally`.
    public var description: String {
        switch self {
        case .disconnected(let reason): "disconnected (reason 0x\(String(reason, radix: 16, uppercase: true)))"
        case .transportClosed(let error): "transport closed (\(error))"
        case .linkFailed(let error): "link failed: \(error)"
        case .transactionTimeout(let request): "\(request) timed out"
        case .local: "closed locally"
        }
    }
}

/// How a bearer operation failed, other than by an Error Response (`ATTError`), the task being
/// cancelled (`CancellationError`) or the channel's own error.
public enum ATTBearerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The transaction in progress timed out; the bearer is closed and every request waiting on
    /// it fails with this error.
    case transactionTimeout(request: ATTOpcode)
    /// The bearer is closed.
    case closed(ATTBearerCloseReason)
    /// The PDU does not fit the current ATT_MTU.
    case pduTooLong(ATTOpcode, length: Int, mtu: Int)
    /// The response ended the transaction but could not be decoded (also counted as a
    /// protocol violation).
    case malformedResponse(ATTDecodingError)
    /// An armed write was withdrawn before it fired.
    case withdrawn

    /// A one-line explanation for logs, e.g. `ATT bearer closed: closed locally`.
    public var description: String {
        switch self {
        case .transactionTimeout(let request): "ATT transaction timeout waiting for the response to \(request)"
        case .closed(let reason): "ATT bearer closed: \(reason)"
        case .pduTooLong(let opcode, let length, let mtu): "\(opcode) of \(length) bytes exceeds ATT_MTU \(mtu)"
        case .malformedResponse(let error): "malformed response: \(error)"
        case .withdrawn: "the armed write was withdrawn before it fired"
        }
    }
}

extension ATTBearerCloseReason {
    /// What waiters see when the bearer closes for this reason.
    var error: ATTBearerError {
        if case .transactionTimeout(let request) = self { return .transactionTimeout(request: request) }
        return .closed(self)
    }
}

/// A PDU from the peer that breaks the protocol. Counted and dropped; the bearer keeps running.
package enum ATTProtocolViolation: Hashable, Sendable, CustomStringConvertible {
    /// A PDU too short or inconsistent to decode.
    case malformedPDU(ATTDecodingError)
    /// A response while no request was outstanding.
    case unexpectedResponse(ATTOpcode)
    /// A response of the wrong opcode for the outstanding request.
    case mismatchedResponse(request: ATTOpcode, response: ATTOpcode)
    /// An Error Response naming a request other than the outstanding one.
    case mismatchedErrorResponse(request: ATTOpcode, reportedRequest: ATTOpcode)
    /// A Handle Value Confirmation, though we sent no indication.
    case unexpectedConfirmation

    package var description: String {
        switch self {
        case .malformedPDU(let error): "\(error)"
        case .unexpectedResponse(let opcode): "\(opcode) with no request outstanding"
        case .mismatchedResponse(let request, let response): "\(response) does not answer \(request)"
        case .mismatchedErrorResponse(let request, let reported):
            "Error Response for \(reported) while \(request) is outstanding"
        case .unexpectedConfirmation: "Handle Value Confirmation with no indication sent"
        }
    }
}

/// Counters a bearer keeps for diagnostics.
package struct ATTBearerStatistics: Hashable, Sendable {
    package var notificationsReceived: UInt64 = 0
    package var indicationsReceived: UInt64 = 0
    /// Notifications and indications for a handle with no handler (indications still confirmed).
    package var unroutedValues: UInt64 = 0
    package var protocolViolations: UInt64 = 0
    package var lastProtocolViolation: ATTProtocolViolation?
    /// Peer requests answered with Request Not Supported.
    package var unsupportedRequests: UInt64 = 0
    /// Peer commands we do not serve, ignored as the spec says.
    package var ignoredCommands: UInt64 = 0
    /// Responses whose waiter had been cancelled.
    package var abandonedResponses: UInt64 = 0

    package init() {}
}
