/// Whether a Nova's light is on, as far as the host can tell, following the reference SDK:
/// a light command makes it lit at once; when that command is acked the device's safety timeout
/// starts, and once it passes the light counts as off even if OFF never went out. OFF, a failed
/// light command and a lost connection make it unlit.
///
/// Time is passed in, so it runs on any clock.
package struct NovaLightTracker<Instant: InstantProtocol>: Sendable, Equatable
where Instant.Duration == Duration {
    package private(set) var isLit = false
    /// When the device's safety timeout turns the light off; `nil` while unlit or until the light
    /// command is acked.
    package private(set) var offDeadline: Instant?
    /// The light command that lit it, while its ack is awaited.
    private var lightCommand: (ticket: NovaCommandTicket, timeout: Duration)?

    package init() {}

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.isLit == rhs.isLit && lhs.offDeadline == rhs.offDeadline
            && lhs.lightCommand?.ticket == rhs.lightCommand?.ticket
            && lhs.lightCommand?.timeout == rhs.lightCommand?.timeout
    }

    /// Lit at `now` unless the safety timeout has passed.
    package func isLit(at now: Instant) -> Bool {
        guard isLit else { return false }
        guard let offDeadline else { return true }
        return now < offDeadline
    }

    /// A light command was issued. Returns whether `isLit` changed.
    @discardableResult
    package mutating func lightRequested(_ ticket: NovaCommandTicket, timeout: Duration) -> Bool {
        defer {
            isLit = true
            offDeadline = nil
            lightCommand = (ticket, timeout)
        }
        return !isLit
    }

    /// OFF was issued. Returns whether `isLit` changed.
    @discardableResult
    package mutating func offRequested() -> Bool { reset() }

    /// A command was acked at `now`: if it is the light command that lit the flash, its safety
    /// timeout starts counting.
    package mutating func acknowledged(_ ticket: NovaCommandTicket, at now: Instant) {
        guard let lightCommand, lightCommand.ticket == ticket else { return }
        offDeadline = now.advanced(by: lightCommand.timeout)
        self.lightCommand = nil
    }

    /// A command failed: if it is the light command, the light is taken as off. Returns whether
    /// `isLit` changed.
    @discardableResult
    package mutating func failed(_ ticket: NovaCommandTicket) -> Bool {
        guard let lightCommand, lightCommand.ticket == ticket else { return false }
        return reset()
    }

    /// Clears `isLit` when the safety timeout has passed at `now`. Returns whether it changed.
    @discardableResult
    package mutating func expire(at now: Instant) -> Bool {
        guard isLit, let offDeadline, now >= offDeadline else { return false }
        return reset()
    }

    /// Unlit (disconnect). Returns whether `isLit` changed.
    @discardableResult
    package mutating func reset() -> Bool {
        defer {
            isLit = false
            offDeadline = nil
            lightCommand = nil
        }
        return isLit
    }
}
