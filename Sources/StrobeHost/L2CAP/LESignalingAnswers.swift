import StrobeHCI

/// A link's LE signalling outside its credit-based channels, as a machine without I/O or clock:
/// the central answering the peer's Connection Parameter Update Request under the link's
/// `ConnectionParameterPolicy` (Core Vol 3, Part A, 4.20), the peripheral's own request and its
/// response (4.21), and Command Reject for what this host does not serve (4.1). Inputs from the
/// owner (`L2CAPLink`): received commands, the request's send, its deadline, the link's end;
/// actions out: what to send, the deadline to keep, the caller's outcome.
package struct LESignalingAnswers<Token: Equatable & Sendable>: Sendable {
    package enum Action: Equatable, Sendable {
        /// Command Reject (Command not understood) to the command with this identifier.
        case reject(identifier: UInt8)
        /// Connection Parameter Update Response; once it is sent, LE Connection Update with the
        /// accepted parameters (the peer waits for the response first, then for the update).
        case respond(identifier: UInt8, accepted: LEConnectionParameters?)
        /// Our Connection Parameter Update Request.
        case sendRequest(LESignalingPacket)
        /// The request went out: its response is due within the signalling timeout.
        case awaitResponse
        /// The request is settled: its deadline goes.
        case responseSettled
        /// The caller waiting for its request hears how it ended: accepted or not.
        case finish(Token, Result<Bool, Failure>)
        /// A command was malformed (counted by the owner).
        case malformed(L2CAPSignalingError)
    }

    package enum Failure: Error, Equatable, Sendable {
        /// A later request took the wait over.
        case superseded
        /// The response's data was not the 2 bytes of a result.
        case malformed(L2CAPSignalingError)
        /// No response within the signalling timeout.
        case timedOut
        /// The central answered with Command Reject: it does not serve the request.
        case rejected
        /// The link went down.
        case disconnected
    }

    /// The link's role: only a central serves Connection Parameter Update Requests.
    package let role: LERole
    package let policy: ConnectionParameterPolicy
    /// Connection Parameter Update Requests the peer sent, and how many were accepted.
    package private(set) var requestsReceived = 0
    package private(set) var requestsAccepted = 0
    /// Our request waiting for its response: the identifier it went with (kept from the
    /// credit-based channels' identifiers) and who waits.
    package private(set) var pending: (identifier: UInt8, token: Token)?
    private var closed = false

    package init(role: LERole, policy: ConnectionParameterPolicy) {
        self.role = role
        self.policy = policy
    }

    /// A command of the peer's that is not about a credit-based channel.
    package mutating func received(_ packet: LESignalingPacket) -> [Action] {
        switch LESignalingCode(rawValue: packet.code) {
        case .connectionParameterUpdateRequest where role == .central:
            let request: ConnectionParameterUpdateRequest
            do throws(L2CAPSignalingError) {
                request = try ConnectionParameterUpdateRequest(data: packet.data)
            } catch {
                return [.malformed(error), .reject(identifier: packet.identifier)]
            }
            // The same policy as the link layer's requests; accepted, the link takes the
            // asked-for parameters narrowed to it.
            requestsReceived += 1
            guard case .accept(let parameters) = policy.decide(request.parameters) else {
                return [.respond(identifier: packet.identifier, accepted: nil)]
            }
            requestsAccepted += 1
            return [.respond(identifier: packet.identifier, accepted: parameters)]
        case .connectionParameterUpdateResponse:
            // Result 0x0000 accepted, 0x0001 rejected; a response to no request of ours is dropped.
            let malformed: L2CAPSignalingError? = packet.data.count == 2 ? nil
                : .lengthMismatch(code: packet.code, announced: 2, actual: packet.data.count)
            guard let pending, pending.identifier == packet.identifier else { return malformed.map { [.malformed($0)] } ?? [] }
            self.pending = nil
            guard let malformed else {
                return [.responseSettled, .finish(pending.token, .success(packet.data[0] == 0 && packet.data[1] == 0))]
            }
            return [.malformed(malformed), .responseSettled, .finish(pending.token, .failure(.malformed(malformed)))]
        case .commandReject:
            // Ours, when it names our request: the central's host does not serve it.
            guard let pending, pending.identifier == packet.identifier else { return [] }
            self.pending = nil
            return [.responseSettled, .finish(pending.token, .failure(.rejected))]
        case .disconnectionResponse, .leCreditBasedConnectionResponse, .flowControlCredit:
            // Answers and notices: nothing to answer back.
            return []
        default:
            // Unknown, or a request this host does not serve: Command Reject (not understood).
            return [.reject(identifier: packet.identifier)]
        }
    }

    /// Peripheral: asks the central for `parameters` with `identifier`; `token` hears the
    /// outcome. A request still waiting is superseded.
    package mutating func request(_ parameters: LEConnectionParameters, identifier: UInt8, for token: Token) -> [Action] {
        guard !closed else { return [.finish(token, .failure(.disconnected))] }
        var actions: [Action] = []
        if let previous = pending { actions += [.responseSettled, .finish(previous.token, .failure(.superseded))] }
        pending = (identifier, token)
        let request = ConnectionParameterUpdateRequest(intervalMin: parameters.intervalMin, intervalMax: parameters.intervalMax,
                                                       latency: parameters.maxLatency, timeout: parameters.supervisionTimeout)
        actions.append(.sendRequest(request.request(identifier: identifier)))
        return actions
    }

    /// `token`'s request went out: its deadline starts, unless it is answered or replaced already.
    package mutating func requestSent(for token: Token) -> [Action] {
        pending?.token == token ? [.awaitResponse] : []
    }

    /// `token` gives its request up (its send failed, or its caller was cancelled).
    package mutating func withdraw(_ token: Token) -> [Action] {
        guard pending?.token == token else { return [] }
        pending = nil
        return [.responseSettled]
    }

    /// The request's deadline passed without a response.
    package mutating func responseTimedOut() -> [Action] {
        guard let pending else { return [] }
        self.pending = nil
        return [.finish(pending.token, .failure(.timedOut))]
    }

    /// The link is down: a request waiting fails, and a later one fails at once.
    package mutating func linkClosed() -> [Action] {
        closed = true
        guard let pending else { return [] }
        self.pending = nil
        return [.responseSettled, .finish(pending.token, .failure(.disconnected))]
    }
}
