/// The client side of ATT's sequential protocol (Core Specification Vol 3, Part F, 3.3.2) as a
/// state machine that does no I/O and reads no clock: one request outstanding, the rest queued
/// in order, each ended exactly once by its response, an Error Response, a failed send, its
/// deadline (counted from when it was queued), or the bearer closing.
///
/// An armed request (a write prepared ahead of a trigger) is a deferred transaction: it takes its
/// turn like any other, then holds the slot unsent until its owner fires it (its deadline starts
/// then) or withdraws it; a request queued behind it asks for it to be withdrawn.
///
/// The owner feeds inputs with the time, performs the `Action`s in order and wakes it at
/// `nextDeadline`.
package struct ATTTransactions<Token: Equatable> {
    package enum Action {
        /// Put this request's PDU on the channel.
        case send(id: UInt64, pdu: [UInt8])
        /// An armed request reached the slot: its owner may fire it now.
        case turn(Token)
        /// An armed request holds the slot and others wait: withdraw it (or learn it fired).
        case withdraw(Token)
        /// The request ended.
        case complete(Token, Result<[UInt8], any Error>)
        /// The outstanding request timed out: no further ATT PDUs may be sent on this bearer.
        case close(ATTBearerCloseReason)
    }

    package enum Phase: Equatable {
        case queued
        /// Handed to the channel (or about to be).
        case sent
        /// Holds the slot unsent, waiting for its trigger.
        case armed
        /// Asked to give way; the owner reports `withdrawn` or `fired`.
        case withdrawing
    }

    package struct Request {
        package var id: UInt64
        /// `nil` once the caller stopped waiting: the transaction still runs to its end.
        package var token: Token?
        package var opcode: ATTOpcode
        /// `nil` for an armed request (its owner holds the prepared PDU).
        package var pdu: [UInt8]?
        package var queuedAt: Duration
        /// `nil` for an armed request until it fires.
        package var deadline: Duration?
        package var phase: Phase
    }

    /// What a response did.
    package enum ResponseOutcome: Equatable {
        case completed
        /// The bearer is closed: a late response, dropped quietly.
        case afterClose
        case unexpected
        case mismatched(request: ATTOpcode)
    }

    package private(set) var outstanding: Request?
    package private(set) var queue: [Request] = []
    package private(set) var closedWith: ATTBearerCloseReason?
    /// Responses whose caller had stopped waiting.
    package private(set) var abandonedResponses: UInt64 = 0
    private var nextID: UInt64 = 0
    private let timeout: Duration

    package init(timeout: Duration) { self.timeout = timeout }

    package var nextDeadline: Duration? {
        ([outstanding].compactMap { $0 } + queue).compactMap(\.deadline).min()
    }

    // MARK: Inputs

    /// Queues a request; it is sent when it reaches the slot.
    package mutating func enqueue(_ token: Token, opcode: ATTOpcode, pdu: [UInt8], now: Duration) -> [Action] {
        if let closedWith { return [.complete(token, .failure(closedWith.error))] }
        nextID &+= 1
        queue.append(Request(id: nextID, token: token, opcode: opcode, pdu: pdu, queuedAt: now,
                             deadline: now + timeout, phase: .queued))
        return advance()
    }

    /// Queues an armed request: when it reaches the slot it holds it, unsent, until `fired` or
    /// `withdrawn`.
    package mutating func enqueueArmed(_ token: Token, opcode: ATTOpcode, now: Duration) -> [Action] {
        if let closedWith { return [.complete(token, .failure(closedWith.error))] }
        nextID &+= 1
        queue.append(Request(id: nextID, token: token, opcode: opcode, pdu: nil, queuedAt: now, deadline: nil, phase: .queued))
        return advance()
    }

    /// An armed request went out: its deadline starts now.
    package mutating func fired(_ token: Token, now: Duration) -> [Action] {
        guard var request = outstanding, request.token == token, request.pdu == nil,
              request.phase == .armed || request.phase == .withdrawing else { return [] }
        request.phase = .sent
        request.deadline = now + timeout
        outstanding = request
        return []
    }

    /// An armed request gave way unsent (or failed to go out): the slot goes to the next one.
    /// One still queued leaves the queue.
    package mutating func withdrawn(_ token: Token) -> [Action] {
        if let index = queue.firstIndex(where: { $0.token == token && $0.pdu == nil }) {
            queue.remove(at: index)
            return []
        }
        guard let request = outstanding, request.token == token, request.pdu == nil,
              request.phase == .armed || request.phase == .withdrawing else { return [] }
        outstanding = nil
        return advance()
    }

    /// The channel could not send the request: it ends with the channel's error.
    package mutating func sendFailed(id: UInt64, error: any Error) -> [Action] {
        guard let request = outstanding, request.id == id else { return [] }
        outstanding = nil
        var actions: [Action] = request.token.map { [.complete($0, .failure(error))] } ?? []
        actions += advance()
        return actions
    }

    /// A response or Error Response (`errorFor`: the request it names). `armedFired` says
    /// whether an armed outstanding request has gone out (a response to one that has not cannot
    /// be its own).
    package mutating func received(
        _ response: ATTOpcode, errorFor: ATTOpcode?, result: Result<[UInt8], any Error>, armedFired: Bool
    ) -> (ResponseOutcome, [Action]) {
        guard closedWith == nil else { return (.afterClose, []) }
        guard let request = outstanding else { return (.unexpected, []) }
        if request.pdu == nil, request.phase != .sent, !armedFired { return (.unexpected, []) }
        if let errorFor {
            guard errorFor == request.opcode else { return (.mismatched(request: request.opcode), []) }
        } else if request.opcode.response != response {
            return (.mismatched(request: request.opcode), [])
        }
        outstanding = nil
        var actions: [Action] = []
        if let token = request.token {
            actions.append(.complete(token, result))
        } else {
            abandonedResponses &+= 1
        }
        actions += advance()
        return (.completed, actions)
    }

    /// The caller stopped waiting: a queued request leaves unsent; the outstanding one runs on
    /// without a caller, so that its response is still matched.
    package mutating func cancel(_ token: Token) {
        if let index = queue.firstIndex(where: { $0.token == token }) {
            queue.remove(at: index)
        } else if outstanding?.token == token, outstanding?.pdu != nil {
            outstanding?.token = nil
        }
    }

    /// The outstanding request past its deadline closes the bearer; a queued one past its
    /// deadline (the slot never came) fails alone.
    package mutating func expire(now: Duration) -> [Action] {
        guard closedWith == nil else { return [] }
        if let request = outstanding, let deadline = request.deadline, deadline <= now {
            return close(.transactionTimeout(request: request.opcode))
        }
        var actions: [Action] = []
        queue.removeAll { request in
            guard let deadline = request.deadline, deadline <= now else { return false }
            if let token = request.token {
                actions.append(.complete(token, .failure(ATTBearerError.transactionTimeout(request: request.opcode))))
            }
            return true
        }
        return actions
    }

    /// Every request fails with `reason`'s error; later ones fail at once. An armed outstanding
    /// request is asked to give way first.
    package mutating func close(_ reason: ATTBearerCloseReason) -> [Action] {
        guard closedWith == nil else { return [] }
        closedWith = reason
        var actions: [Action] = [.close(reason)]
        if let request = outstanding, let token = request.token {
            if request.pdu == nil, request.phase != .sent { actions.append(.withdraw(token)) }
            actions.append(.complete(token, .failure(reason.error)))
        }
        for request in queue {
            guard let token = request.token else { continue }
            if request.pdu == nil { actions.append(.withdraw(token)) }
            actions.append(.complete(token, .failure(reason.error)))
        }
        outstanding = nil
        queue = []
        return actions
    }

    /// Gives a free slot to the next request.
    private mutating func advance() -> [Action] {
        guard closedWith == nil else { return [] }
        if var current = outstanding {
            // An armed request holding the slot gives way to the ones behind it.
            if current.pdu == nil, current.phase == .armed, !queue.isEmpty, let token = current.token {
                current.phase = .withdrawing
                outstanding = current
                return [.withdraw(token)]
            }
            return []
        }
        guard !queue.isEmpty else { return [] }
        var next = queue.removeFirst()
        if let pdu = next.pdu {
            next.phase = .sent
            outstanding = next
            return [.send(id: next.id, pdu: pdu)]
        }
        next.phase = .armed
        outstanding = next
        guard let token = next.token else { return [] }
        var actions: [Action] = [.turn(token)]
        if !queue.isEmpty {
            outstanding?.phase = .withdrawing
            actions.append(.withdraw(token))
        }
        return actions
    }
}

extension ATTTransactions: Sendable where Token: Sendable {}
extension ATTTransactions.Request: Sendable where Token: Sendable {}
extension ATTTransactions.Action: Sendable where Token: Sendable {}
