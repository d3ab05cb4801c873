/// The reference SDK's command discipline for one Nova connection, as a state machine with no
/// I/O and no clock of its own: the owner feeds it events with the current time and carries out
/// the actions it returns, in order.
///
/// Rules:
/// - One command in flight; the rest wait in FIFO order. The next is written only after the
///   previous one's ack or failure.
/// - No ack within `ackTimeout` (2 s): the pending command fails, the queue moves on.
/// - An unparsable response, an ack for another request or an ack when none is pending: the
///   queue asks for a disconnect and fails every command, pending and queued; it is closed.
/// - Disconnect fails the pending and all queued commands and closes the queue. A closed queue
///   fails new commands at once; a new connection takes a new queue.
/// - A light command with nothing to show goes out as OFF (`NovaCommand.normalized`).
/// - A command may be armed while the queue is idle: its request id is reserved and its bytes
///   returned, for the owner to write at a trigger of its choosing. Armed, it holds the queue
///   (nothing else is written); the owner reports `armedWritten(now:)` or `disarm()`.
/// - It keeps `light` (whether the flash is lit) and needs one timer: `startTimer(deadline:)`
///   (re)arms it for the earliest of the ack deadline and the light's safety timeout,
///   `cancelTimer` disarms it; when it fires, call `timerFired(now:)`.
package struct NovaCommandQueue<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    package enum Action: Sendable, Hashable {
        /// Write these bytes, with response, to the request characteristic.
        case write([UInt8])
        /// (Re)arm the single timer; replaces any earlier deadline.
        case startTimer(deadline: Instant)
        case cancelTimer
        /// Report how a command ended; each ticket completes exactly once.
        case complete(NovaCommandTicket, NovaCommandResult)
        /// Drop the connection (after a protocol violation).
        case disconnect
        /// `isLit` changed.
        case lightChanged(isLit: Bool)
        /// V2: the flash's own button was pressed or released (a remote shutter).
        case remoteTrigger(pressed: Bool)
    }

    package struct Counters: Sendable, Hashable {
        package var enqueued: UInt64 = 0
        package var written: UInt64 = 0
        package var acknowledged: UInt64 = 0
        package var timedOut: UInt64 = 0
        /// Commands failed by a disconnect, a protocol violation or a failed write, or refused
        /// while closed.
        package var failed: UInt64 = 0
        package var malformedResponses: UInt64 = 0
        /// Acks for the wrong request, or with none pending.
        package var unexpectedAcks: UInt64 = 0
        package var triggers: UInt64 = 0
        /// Responses and timer events that arrived after the queue had closed.
        package var ignoredAfterClose: UInt64 = 0
        package init() {}
    }

    private struct Entry: Sendable {
        var ticket: NovaCommandTicket
        var command: NovaCommand
    }

    private struct InFlight: Sendable {
        var entry: Entry
        var requestID: UInt16
        var deadline: Instant
    }

    package let model: NovaModel
    package let ackTimeout: Duration
    package private(set) var counters = Counters()
    package private(set) var light = NovaLightTracker<Instant>()
    /// False once the queue asked for a disconnect or was told of one.
    package private(set) var isOpen = true

    private var waiting: [Entry] = []
    private var waitingHead = 0
    private var inFlight: InFlight?
    private var armed: (entry: Entry, requestID: UInt16)?
    private var nextTicket: UInt64 = 1
    private var nextRequestID: UInt16
    private var armedDeadline: Instant?

    package static var defaultAckTimeout: Duration { .seconds(2) }

    /// `firstRequestID` is used as is for V2 and by its low 8 bits for V1.
    package init(model: NovaModel, ackTimeout: Duration = defaultAckTimeout, firstRequestID: UInt16 = 0) {
        self.model = model
        self.ackTimeout = ackTimeout
        self.nextRequestID = model == .v1 ? UInt16(UInt8(truncatingIfNeeded: firstRequestID)) : firstRequestID
    }

    /// A command is armed: written at its trigger, or withdrawn.
    package var isArmed: Bool { armed != nil }
    /// A command awaits its ack (the SDK's Busy status).
    package var isBusy: Bool { inFlight != nil }
    /// The request id of the command awaiting its ack.
    package var pendingRequestID: UInt16? { inFlight?.requestID }
    /// Commands waiting behind the one in flight.
    package var queuedCount: Int { waiting.count - waitingHead }
    /// Lit at `now`, as far as the host can tell.
    package func isLit(at now: Instant) -> Bool { light.isLit(at: now) }

    // MARK: Events

    /// Queues `command`; writes it at once when nothing is in flight.
    package mutating func enqueue(_ command: NovaCommand, now: Instant) -> (ticket: NovaCommandTicket, actions: [Action]) {
        let ticket = NovaCommandTicket(rawValue: nextTicket)
        nextTicket += 1
        counters.enqueued += 1
        var actions: [Action] = []
        guard isOpen else {
            counters.failed += 1
            actions.append(.complete(ticket, .failed(.notConnected)))
            return (ticket, actions)
        }
        let command = command.normalized
        switch command {
        case .flash(let settings):
            if light.lightRequested(ticket, timeout: settings.timeout) { actions.append(.lightChanged(isLit: true)) }
        case .off:
            if light.offRequested() { actions.append(.lightChanged(isLit: false)) }
        case .ping:
            break
        }
        waiting.append(Entry(ticket: ticket, command: command))
        writeNextIfIdle(now: now, into: &actions)
        armTimer(into: &actions)
        return (ticket, actions)
    }

    /// Readies `command` to be written later by the owner, when the queue is open and idle (nothing
    /// in flight, queued or armed): reserves its ticket and request id and returns its bytes.
    package mutating func arm(_ command: NovaCommand) -> (ticket: NovaCommandTicket, bytes: [UInt8])? {
        guard isOpen, inFlight == nil, armed == nil, waitingHead == waiting.count else { return nil }
        let ticket = NovaCommandTicket(rawValue: nextTicket)
        nextTicket += 1
        let requestID = nextRequestID
        nextRequestID = model.requestID(after: requestID)
        let entry = Entry(ticket: ticket, command: command.normalized)
        armed = (entry, requestID)
        return (ticket, entry.command.encoded(for: model, requestID: requestID))
    }

    /// The armed command's bytes were written at `now`: it is in flight, with its ack deadline.
    package mutating func armedWritten(now: Instant) -> [Action] {
        guard let (entry, requestID) = armed else { return [] }
        armed = nil
        counters.enqueued += 1
        counters.written += 1
        var actions: [Action] = []
        switch entry.command {
        case .flash(let settings):
            if light.lightRequested(entry.ticket, timeout: settings.timeout) { actions.append(.lightChanged(isLit: true)) }
        case .off:
            if light.offRequested() { actions.append(.lightChanged(isLit: false)) }
        case .ping:
            break
        }
        inFlight = InFlight(entry: entry, requestID: requestID, deadline: now.advanced(by: ackTimeout))
        armTimer(into: &actions)
        return actions
    }

    /// The armed command was not written: it fails with `failure` (its request id stays
    /// unused) and the queue writes what waited behind it.
    package mutating func disarm(failingWith failure: NovaCommandFailure = .withdrawn, now: Instant) -> [Action] {
        guard let (entry, _) = armed else { return [] }
        armed = nil
        var actions: [Action] = [.complete(entry.ticket, .failed(failure))]
        writeNextIfIdle(now: now, into: &actions)
        armTimer(into: &actions)
        return actions
    }

    /// A notification from the response characteristic.
    package mutating func responseReceived(_ bytes: UnsafeRawBufferPointer, now: Instant) -> [Action] {
        guard isOpen else {
            counters.ignoredAfterClose += 1
            return []
        }
        let response: NovaResponse
        do {
            response = try NovaResponse(decoding: bytes, model: model)
        } catch {
            counters.malformedResponses += 1
            return fail(.malformedResponse(error))
        }
        switch response {
        case .trigger(_, let pressed):
            counters.triggers += 1
            return [.remoteTrigger(pressed: pressed)]
        case .ack(let requestID):
            guard let pending = inFlight else {
                counters.unexpectedAcks += 1
                return fail(.ackWithoutRequest(received: requestID))
            }
            guard pending.requestID == requestID else {
                counters.unexpectedAcks += 1
                return fail(.unexpectedAck(expected: pending.requestID, received: requestID))
            }
            inFlight = nil
            counters.acknowledged += 1
            light.acknowledged(pending.entry.ticket, at: now)
            var actions: [Action] = [.complete(pending.entry.ticket, .acknowledged)]
            writeNextIfIdle(now: now, into: &actions)
            armTimer(into: &actions)
            return actions
        }
    }

    package mutating func responseReceived(_ bytes: [UInt8], now: Instant) -> [Action] {
        bytes.withUnsafeBytes { responseReceived($0, now: now) }
    }

    /// The timer armed by `startTimer` fired (early or late is fine: only what is due acts).
    package mutating func timerFired(now: Instant) -> [Action] {
        armedDeadline = nil
        guard isOpen else {
            counters.ignoredAfterClose += 1
            return []
        }
        var actions: [Action] = []
        if light.expire(at: now) { actions.append(.lightChanged(isLit: false)) }
        if let pending = inFlight, now >= pending.deadline {
            inFlight = nil
            counters.timedOut += 1
            actions.append(.complete(pending.entry.ticket, .failed(.ackTimeout)))
            if light.failed(pending.entry.ticket) { actions.append(.lightChanged(isLit: false)) }
            writeNextIfIdle(now: now, into: &actions)
        }
        armTimer(into: &actions)
        return actions
    }

    /// The write of a command failed; `bytes` are what the owner wrote. The command in flight,
    /// when those are its bytes, fails with `.writeFailed(reason)` and the next is written; a
    /// command already settled (it timed out while its write was under way) changes nothing.
    package mutating func writeFailed(_ bytes: [UInt8], reason: String, now: Instant) -> [Action] {
        guard isOpen, let pending = inFlight, pending.entry.command.encoded(for: model, requestID: pending.requestID) == bytes else {
            return []
        }
        inFlight = nil
        counters.failed += 1
        var actions: [Action] = [.complete(pending.entry.ticket, .failed(.writeFailed(reason)))]
        if light.failed(pending.entry.ticket) { actions.append(.lightChanged(isLit: false)) }
        writeNextIfIdle(now: now, into: &actions)
        armTimer(into: &actions)
        return actions
    }

    /// The link went down: everything fails with `.disconnected` and the queue closes.
    package mutating func disconnected() -> [Action] {
        guard isOpen else { return [] }
        return close(failingWith: .disconnected, requestDisconnect: false)
    }

    // MARK: Internals

    /// The flash broke the protocol: `violation` says how.
    private mutating func fail(_ violation: NovaCommandFailure) -> [Action] {
        assert(violation.isProtocolViolation)
        return close(failingWith: violation, requestDisconnect: true)
    }

    private mutating func close(failingWith failure: NovaCommandFailure, requestDisconnect: Bool) -> [Action] {
        isOpen = false
        var actions: [Action] = requestDisconnect ? [.disconnect] : []
        if let pending = inFlight {
            actions.append(.complete(pending.entry.ticket, .failed(failure)))
            counters.failed += 1
            inFlight = nil
        }
        if let (entry, _) = armed {
            actions.append(.complete(entry.ticket, .failed(failure)))
            armed = nil
        }
        for entry in waiting[waitingHead...] {
            actions.append(.complete(entry.ticket, .failed(failure)))
            counters.failed += 1
        }
        waiting.removeAll()
        waitingHead = 0
        if light.reset() { actions.append(.lightChanged(isLit: false)) }
        armTimer(into: &actions)
        return actions
    }

    private mutating func writeNextIfIdle(now: Instant, into actions: inout [Action]) {
        guard inFlight == nil, armed == nil, waitingHead < waiting.count else { return }
        let entry = waiting[waitingHead]
        waitingHead += 1
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        }
        let requestID = nextRequestID
        nextRequestID = model.requestID(after: requestID)
        inFlight = InFlight(entry: entry, requestID: requestID, deadline: now.advanced(by: ackTimeout))
        counters.written += 1
        actions.append(.write(entry.command.encoded(for: model, requestID: requestID)))
    }

    /// One timer serves the ack deadline and the light's safety timeout: keep it on the earliest.
    private mutating func armTimer(into actions: inout [Action]) {
        var earliest = inFlight?.deadline
        if light.isLit, let off = light.offDeadline { earliest = earliest.map { min($0, off) } ?? off }
        guard earliest != armedDeadline else { return }
        armedDeadline = earliest
        actions.append(earliest.map { .startTimer(deadline: $0) } ?? .cancelTimer)
    }
}
