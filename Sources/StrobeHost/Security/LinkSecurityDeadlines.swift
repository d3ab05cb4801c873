import StrobeHCI

/// The deadlines of one link's Security Manager, as a machine without a clock or I/O: times go
/// in as durations on the owner's time line, `next` is what the owner's one `DeadlineTimer`
/// waits for, and `expire(now:)` says what has passed.
package struct LinkSecurityDeadlines {
    package enum Expiry: Hashable, Sendable {
        /// The SMP timer ran out (Vol 3, Part H, 3.4): the pairing under way fails.
        case smpTimer
        /// A caller's wait (for a pairing, or for Encryption Change) gave up.
        case wait(id: Int)
        /// Peripheral: time to send the Security Request again, if the central still has not
        /// answered it.
        case securityRequestReminder
    }

    /// A peripheral asks again 1, 3, 7 and 15 s after its first Security Request.
    package static let reminderGaps: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8)]

    private var deadlines = DeadlineSet<Expiry>()
    private var nextWaitID = 0
    /// The gaps to the reminders after the one scheduled.
    private var reminderGapsLeft: ArraySlice<Duration> = []

    package init() {}

    /// The earliest deadline, nil when nothing is waited for.
    package var next: Duration? { deadlines.next }

    package var remindsCentral: Bool { deadlines.deadline(of: .securityRequestReminder) != nil }

    /// (Re)starts the SMP timer: every SMP command sent or received while pairing.
    package mutating func startSMPTimer(now: Duration, timeout: Duration) {
        deadlines.set(.smpTimer, at: now + timeout)
    }

    package mutating func stopSMPTimer() {
        deadlines.clear(.smpTimer)
    }

    /// A caller waits until `deadline`; the id names it in `.wait(id:)` and `endWait`.
    package mutating func startWait(until deadline: Duration) -> Int {
        nextWaitID += 1
        deadlines.set(.wait(id: nextWaitID), at: deadline)
        return nextWaitID
    }

    package mutating func endWait(_ id: Int) {
        deadlines.clear(.wait(id: id))
    }

    /// The first Security Request went out at `now`: reminders follow, unless already under way.
    package mutating func startReminders(now: Duration) {
        guard !remindsCentral, let first = Self.reminderGaps.first else { return }
        deadlines.set(.securityRequestReminder, at: now + first)
        reminderGapsLeft = Self.reminderGaps.dropFirst()
    }

    package mutating func stopReminders() {
        deadlines.clear(.securityRequestReminder)
        reminderGapsLeft = []
    }

    /// Everything due at `now`, earliest first, each reported once; a reminder moves on to the
    /// next gap (or ends after the last).
    package mutating func expire(now: Duration) -> [Expiry] {
        let reminderAt = deadlines.deadline(of: .securityRequestReminder)
        let expired = deadlines.expire(now: now)
        if expired.contains(.securityRequestReminder), let at = reminderAt, let gap = reminderGapsLeft.popFirst() {
            deadlines.set(.securityRequestReminder, at: at + gap)
        }
        return expired
    }

    /// The link is down: nothing more is due.
    package mutating func stopAll() {
        deadlines.removeAll()
        reminderGapsLeft = []
    }
}
