import StrobeHCI

/// The central's attempt to connect, as a machine without I/O or clock (Core Vol 4, Part E,
/// 7.8.12 LE Create Connection, 7.8.13 LE Create Connection Cancel, 7.7.65.1 LE Connection
/// Complete). The controller allows one attempt at a time. Inputs: the start, the outcomes of
/// the commands the machine asked for, the deadline, the caller's cancel, LE Connection
/// Complete and the controller's close; out come the commands to send and the attempt's end.
/// The owner sends, keeps `token` (its waiter) and waits on one timer for `nextDeadline`.
package struct LEConnectionEstablishment<Token: Equatable & Sendable>: Sendable {
    package enum Action: Equatable, Sendable {
        /// Send LE Create Connection (or its extended form) and report its outcome to
        /// `createConnectionSent`.
        case sendCreateConnection
        /// Send LE Create Connection Cancel and report its outcome to `cancelSent`.
        case sendCreateConnectionCancel
        /// The attempt is over.
        case finish(Token, Result<LEConnectionCompleteEvent, Failure>)
        /// A connection came up for an attempt that ended while the controller may still have
        /// been connecting (its cancel failed, or never completed): end it (Disconnect) rather
        /// than leave it open to nobody.
        case disconnect(ConnectionHandle)
    }

    /// How long the controller may take to report LE Connection Complete after it took LE Create
    /// Connection Cancel before the attempt ends without it.
    package static var cancelCompletionTimeout: Duration { .seconds(2) }

    /// Why an attempt ended without a connection.
    package enum Failure: Error, Equatable, Sendable {
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
        /// The controller took LE Create Connection Cancel but reported no LE Connection Complete
        /// within `after`.
        case noCompletion(after: Duration)
    }

    private enum Phase: Equatable {
        case idle
        /// LE Create Connection is out, its Command Status not back; `cancelWanted` when the
        /// caller cancelled meanwhile.
        case creating(Token, timeout: Duration, cancelWanted: Bool)
        /// The controller initiates until `deadline`.
        case initiating(Token, timeout: Duration, deadline: Duration)
        /// LE Create Connection Cancel is asked for; its LE Connection Complete ends the attempt,
        /// or `deadline` (once the controller took the cancel) does.
        case cancelling(Token, timeout: Duration, byCaller: Bool, deadline: Duration?)
        case closed(HCIError)
    }

    private var phase = Phase.idle
    /// An attempt ended without knowing that the controller stopped connecting.
    private var mayStillConnect = false

    package init() {}

    /// When the attempt under way times out, on the owner's time line.
    package var nextDeadline: Duration? {
        switch phase {
        case .initiating(_, _, let deadline): deadline
        case .cancelling(_, _, _, let deadline): deadline
        case .idle, .creating, .closed: nil
        }
    }

    /// The token of the attempt under way.
    package var pending: Token? {
        switch phase {
        case .creating(let token, _, _), .initiating(let token, _, _), .cancelling(let token, _, _, _): token
        case .idle, .closed: nil
        }
    }

    /// Starts an attempt that may take `timeout` once the controller has taken the command.
    /// One at a time: a second start, or one after the close, ends at once.
    package mutating func start(_ token: Token, timeout: Duration) -> [Action] {
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
    package mutating func createConnectionSent(_ result: Result<Void, HCIError>, now: Duration) -> [Action] {
        guard case .creating(let token, let timeout, let cancelWanted) = phase else { return [] }
        if case .failure(let error) = result {
            phase = .idle
            return [.finish(token, .failure(.command(error)))]
        }
        if cancelWanted {
            phase = .cancelling(token, timeout: timeout, byCaller: true, deadline: nil)
            return [.sendCreateConnectionCancel]
        }
        phase = .initiating(token, timeout: timeout, deadline: now + timeout)
        return []
    }

    /// The owner's timer fired at `now`: an attempt past its deadline is cancelled; one whose
    /// cancel brought no LE Connection Complete ends without it.
    package mutating func deadlinePassed(now: Duration) -> [Action] {
        switch phase {
        case .initiating(let token, let timeout, let deadline) where deadline <= now:
            phase = .cancelling(token, timeout: timeout, byCaller: false, deadline: nil)
            return [.sendCreateConnectionCancel]
        case .cancelling(let token, _, _, let deadline?) where deadline <= now:
            phase = .idle
            mayStillConnect = true
            return [.finish(token, .failure(.noCompletion(after: Self.cancelCompletionTimeout)))]
        default:
            return []
        }
    }

    /// The caller of the attempt `token` gave up: the controller is asked to stop initiating.
    /// The attempt still ends with LE Connection Complete (Unknown Connection Identifier, or a
    /// connection made just before the cancel).
    package mutating func cancelled(_ token: Token) -> [Action] {
        switch phase {
        case .creating(let pending, let timeout, _) where pending == token:
            phase = .creating(pending, timeout: timeout, cancelWanted: true)
            return []
        case .initiating(let pending, let timeout, _) where pending == token:
            phase = .cancelling(pending, timeout: timeout, byCaller: true, deadline: nil)
            return [.sendCreateConnectionCancel]
        case .cancelling(let pending, let timeout, _, let deadline) where pending == token:
            phase = .cancelling(pending, timeout: timeout, byCaller: true, deadline: deadline)
            return []
        default:
            return []
        }
    }

    /// LE Create Connection Cancel's outcome at `now`. Taken (or refused with Command
    /// Disallowed: nothing is initiating any more), its LE Connection Complete is on its way, and
    /// waited for up to `cancelCompletionTimeout`; any other failure ends the attempt with it,
    /// since no LE Connection Complete may come.
    package mutating func cancelSent(_ result: Result<Void, HCIError>, now: Duration) -> [Action] {
        guard case .cancelling(let token, let timeout, let byCaller, _) = phase else { return [] }
        if case .failure(let error) = result {
            if case .commandFailed(_, .commandDisallowed) = error {} else {
                phase = .idle
                mayStillConnect = true
                return [.finish(token, .failure(.command(error)))]
            }
        }
        phase = .cancelling(token, timeout: timeout, byCaller: byCaller, deadline: now + Self.cancelCompletionTimeout)
        return []
    }

    /// LE Connection Complete for a link in the central role.
    package mutating func connectionComplete(_ event: LEConnectionCompleteEvent) -> [Action] {
        let token: Token
        let timeout: Duration
        /// Set when a cancel was asked for: by the caller, or for the deadline.
        var cancelledByCaller: Bool?
        switch phase {
        case .creating(let pending, let limit, _), .initiating(let pending, let limit, _):
            (token, timeout) = (pending, limit)
        case .cancelling(let pending, let limit, let byCaller, _):
            (token, timeout, cancelledByCaller) = (pending, limit, byCaller)
        case .idle, .closed:
            guard mayStillConnect, event.status.isSuccess else { return [] }
            mayStillConnect = false
            return [.disconnect(event.connectionHandle)]
        }
        phase = .idle
        if event.status.isSuccess { return [.finish(token, .success(event))] }
        if event.status == .unknownConnectionIdentifier, let byCaller = cancelledByCaller {
            return [.finish(token, .failure(byCaller ? .cancelled : .timedOut(after: timeout)))]
        }
        return [.finish(token, .failure(.rejected(event.status)))]
    }

    /// The controller closed: the attempt under way ends, and no other starts.
    package mutating func closed(_ error: HCIError) -> [Action] {
        let token = pending
        phase = .closed(error)
        return token.map { [.finish($0, .failure(.closed(error)))] } ?? []
    }
}
