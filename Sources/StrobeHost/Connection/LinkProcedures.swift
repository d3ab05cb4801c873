import StrobeHCI

/// This host's procedures on one link whose end the controller reports by an event, as a
/// machine without I/O or clock: a connection parameter update (LE Connection Update Complete,
/// Core Vol 4, Part E, 7.7.65.3) with its fallback to L2CAP signalling, and a PHY update
/// (LE PHY Update Complete, 7.7.65.12). One of each kind at a time; each one's deadline starts
/// once its command was taken; the link's end fails what still waits. Inputs from the owner
/// (`LEConnection`); actions out: the deadlines to keep and the callers' outcomes.
package struct LinkProcedures<Token: Equatable & Sendable>: Sendable {
    package enum Kind: Hashable, Sendable, CaseIterable {
        case parameterUpdate
        case phyUpdate
    }

    package enum Action: Equatable, Sendable {
        /// The procedure's deadline starts now.
        case arm(Kind)
        /// The procedure is over: its deadline goes.
        case disarm(Kind)
        /// The caller hears how its procedure ended: the controller's status for it, or a failure.
        case finish(Token, Result<HCIStatus, Failure>)
    }

    package enum Failure: Error, Equatable, Sendable {
        /// One of this kind is under way already.
        case busy
        /// The controller never reported the procedure done.
        case timedOut
        /// The link is down.
        case disconnected
    }

    /// How a parameter update goes.
    package enum ParameterUpdatePlan: Equatable, Sendable {
        /// The link has these parameters already: nothing to ask (a controller need not report
        /// an update that changes nothing).
        case inUse
        /// LE Connection Update: the central's controller updates the link, a peripheral's asks
        /// the central's link layer.
        case connectionUpdate
    }

    private var waiting: [Kind: Token] = [:]
    private var closed = false

    package init() {}

    /// Whether `kind` has a caller waiting.
    package func isWaiting(_ kind: Kind) -> Bool { waiting[kind] != nil }

    /// Whether `wanted` asks for anything the link does not have already.
    package static func plan(_ wanted: LEConnectionParameters, inUse current: LEConnectionParametersInUse) -> ParameterUpdatePlan {
        let intervals = wanted.intervalMin...max(wanted.intervalMin, wanted.intervalMax)
        return intervals.contains(current.interval) && current.latency == wanted.maxLatency
            && current.supervisionTimeout == wanted.supervisionTimeout ? .inUse : .connectionUpdate
    }

    /// A peripheral's LE Connection Update failed: whether to ask through L2CAP signalling
    /// instead, because its controller cannot run the Connection Parameters Request procedure
    /// (Unknown HCI Command, Command Disallowed) or the central's link layer does not know it
    /// (Unsupported Remote Feature, in the command's answer or in the Complete event).
    package static func fallsBackToSignaling(role: LERole, commandStatus: HCIStatus?, completeStatus: HCIStatus?) -> Bool {
        guard role == .peripheral else { return false }
        if let commandStatus { return [.unknownHCICommand, .commandDisallowed, .unsupportedRemoteFeature].contains(commandStatus) }
        return completeStatus == .unsupportedRemoteFeature
    }

    /// `token` starts a procedure of `kind`; nil when it may go (its command next), else the
    /// finish for the caller.
    package mutating func begin(_ kind: Kind, for token: Token) -> Action? {
        if closed { return .finish(token, .failure(.disconnected)) }
        guard waiting[kind] == nil else { return .finish(token, .failure(.busy)) }
        waiting[kind] = token
        return nil
    }

    /// `token`'s command was taken: its deadline starts, unless the event came first.
    package mutating func commandTaken(_ kind: Kind, for token: Token) -> [Action] {
        waiting[kind] == token ? [.arm(kind)] : []
    }

    /// `token` gives its procedure up (its command failed, or it was cancelled).
    package mutating func withdraw(_ kind: Kind, for token: Token) -> [Action] {
        guard waiting[kind] == token else { return [] }
        waiting[kind] = nil
        return [.disarm(kind)]
    }

    /// The controller reported the procedure done with `status`.
    package mutating func completed(_ kind: Kind, status: HCIStatus) -> [Action] {
        guard let token = waiting.removeValue(forKey: kind) else { return [.disarm(kind)] }
        return [.disarm(kind), .finish(token, .success(status))]
    }

    /// `kind`'s deadline passed.
    package mutating func timedOut(_ kind: Kind) -> [Action] {
        guard let token = waiting.removeValue(forKey: kind) else { return [] }
        return [.finish(token, .failure(.timedOut))]
    }

    /// The link is down: every procedure fails, and every later one at once.
    package mutating func linkClosed() -> [Action] {
        closed = true
        var actions: [Action] = []
        for kind in Kind.allCases {
            guard let token = waiting.removeValue(forKey: kind) else { continue }
            actions += [.disarm(kind), .finish(token, .failure(.disconnected))]
        }
        return actions
    }
}
