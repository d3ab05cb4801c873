import StrobeHCI

/// The central's attempt to connect, as a machine without I/O or clock (Core Vol 4, Part E,
/// 7.8.12 LE Create Connection, 7.8.13 LE Create Connection Cancel, 7.7.65.1 LE Connection
/// Complete). The controller allows one attempt at a time. Inputs: the start, the outcomes of
/// the commands the machine asked for, the deadline, the caller's cancel, LE Connection
/// Complete and the controller's close; out come the commands to send and the attempt's end.
/// The owner sends, keeps `token` (its waiter) and waits on one timer for `nextDeadline`.
struct LEConnectionEstablishment<Token: Equatable & Sendable>: Sendable {
    enum Action: Equatable, Sendable {
        /// Send LE Create Connection (or its extended form) and report its outcome to
        /// `createConnectionSent`.
        case sendCreateConnection
        /// Send LE Create Connection Cancel and report its outcome to `cancelSent`.
        case sendCreateConnectionCancel
        /// The attempt is over.
        case finish(Token, Result<LEConnectionCompleteEvent, Failure>)
    }

    /// Why an attempt ended without a connection.
    enum Failure: Error, Equatable, Sendable {
        /// Its deadline passed; the cancel ended it.
        case timedOut(after: Duration)
        /// The caller cancelled it.
        case cancelled
        /// LE Connection Complete carried this status.
        case rejected(HCIStatus)
        /// A command the attempt needed failed (refused, unanswered, not written), so that no
        /// LE Connection Complete is to be waited for.
        case command(HCIError)
        /// The controller closed.
        case closed(HCIError)
    }

    private enum Phase: Equatable {
        case idle
        /// LE Create Connection is out, its Command Status not back; `cancelWanted` when the
        /// caller cancelled meanwhile.
        case creating(Token, timeout: Duration, cancelWanted: Bool)
        /// The controller initiates until `deadline`.
        case initiating(Token, timeout: Duration, deadline: Duration)
        /// LE Create Connection Cancel is asked for; its LE Connection Complete ends the attempt.
        case cancelling(Token, timeout: Duration, byCaller: Bool)
        case closed(HCIError)
    }

    private var phase = Phase.idle

    /// When the attempt under way times out, on the owner's time line.
    var nextDeadline: Duration? {
        if case .initiating(_, _, let deadline) = phase { return deadline }
        return nil
    }

    /// The token of the attempt under way.
    var pending: Token? {
        switch phase {
        case .creating(let token, _, _), .initiating(let token, _, _), .cancelling(let token, _, _): token
        case .idle, .closed: nil
        }
    }

    /// Starts an attempt that may take `timeout` once the controller has taken the command.
    /// One at a time: a second start, or one after the close, ends at once.
    mutating func start(_ token: Token, timeout: Duration) -> [Action] {
        switch phase {
        case .idle:
            phase = .creating(token, timeout: timeout, cancelWanted: false)
            return [.sendCreateConnection]
        case .closed(let error):
            return [.finish(token, .failure(.closed(error)))]
        case .creating, .initiating, .cancelling:
            return [.finish(token, .failure(.command(.commandFailed(.leCreateConnection, .commandDisallowed))))]
        }
    }

    /// LE Create Connection's Command Status came back (or the command failed) at `now`.
    mutating func createConnectionSent(_ result: Result<Void, HCIError>, now: Duration) -> [Action] {
        guard case .creating(let token, let timeout, let cancelWanted) = phase else { return [] }
        if case .failure(let error) = result {
            phase = .idle
            return [.finish(token, .failure(.command(error)))]
        }
        if cancelWanted {
            phase = .cancelling(token, timeout: timeout, byCaller: true)
            return [.sendCreateConnectionCancel]
        }
        phase = .initiating(token, timeout: timeout, deadline: now + timeout)
        return []
    }

    /// The owner's timer fired at `now`.
    mutating func deadlinePassed(now: Duration) -> [Action] {
        guard case .initiating(let token, let timeout, let deadline) = phase, deadline <= now else { return [] }
        phase = .cancelling(token, timeout: timeout, byCaller: false)
        return [.sendCreateConnectionCancel]
    }

    /// The caller of the attempt `token` gave up: the controller is asked to stop initiating.
    /// The attempt still ends with LE Connection Complete (Unknown Connection Identifier, or a
    /// connection made just before the cancel).
    mutating func cancelled(_ token: Token) -> [Action] {
        switch phase {
        case .creating(let pending, let timeout, _) where pending == token:
            phase = .creating(pending, timeout: timeout, cancelWanted: true)
            return []
        case .initiating(let pending, let timeout, _) where pending == token:
            phase = .cancelling(pending, timeout: timeout, byCaller: true)
            return [.sendCreateConnectionCancel]
        case .cancelling(let pending, let timeout, _) where pending == token:
            phase = .cancelling(pending, timeout: timeout, byCaller: true)
            return []
        default:
            return []
        }
    }

    /// LE Create Connection Cancel's outcome. Command Disallowed says nothing is initiating any
    /// more (its LE Connection Complete is on its way); any other failure ends the attempt with
    /// it, since no LE Connection Complete may come.
    mutating func cancelSent(_ result: Result<Void, HCIError>) -> [Action] {
        guard case .cancelling(let token, _, _) = phase, case .failure(let error) = result else { return [] }
        if case .commandFailed(_, .commandDisallowed) = error { return [] }
        phase = .idle
        return [.finish(token, .failure(.command(error)))]
    }

    /// LE Connection Complete for a link in the central role.
    mutating func connectionComplete(_ event: LEConnectionCompleteEvent) -> [Action] {
        let token: Token
        let timeout: Duration
        /// Set when a cancel was asked for: by the caller, or for the deadline.
        var cancelledByCaller: Bool?
        switch phase {
        case .creating(let pending, let limit, _), .initiating(let pending, let limit, _):
            (token, timeout) = (pending, limit)
        case .cancelling(let pending, let limit, let byCaller):
            (token, timeout, cancelledByCaller) = (pending, limit, byCaller)
        case .idle, .closed:
            return []
        }
        phase = .idle
        if event.status.isSuccess { return [.finish(token, .success(event))] }
        if event.status == .unknownConnectionIdentifier, let byCaller = cancelledByCaller {
            return [.finish(token, .failure(byCaller ? .cancelled : .timedOut(after: timeout)))]
        }
        return [.finish(token, .failure(.rejected(event.status)))]
    }

    /// The controller closed: the attempt under way ends, and no other starts.
    mutating func closed(_ error: HCIError) -> [Action] {
        let token = pending
        phase = .closed(error)
        return token.map { [.finish($0, .failure(.closed(error)))] } ?? []
    }
}
