/// The deadlines of one link's Security Manager, as a machine without a clock or I/O: times go
/// in as durations on the owner's time line, `next` is what the owner's one `DeadlineTimer`
/// waits for, and `expire(now:)` says what has passed.
struct LinkSecurityDeadlines {
    enum Expiry: Hashable, Sendable {
        /// The SMP timer ran out (Vol 3, Part H, 3.4): the pairing under way fails.
        case smpTimer
        /// A caller's wait (for a pairing, or for Encryption Change) gave up.
        case wait(id: Int)
        /// Peripheral: time to send the Security Request again, if the central still has not
        /// answered it.
        case securityRequestReminder
    }

    /// A peripheral asks again 1, 3, 7 and 15 s after its first Security Request.
    static let reminderGaps: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8)]

    private(set) var smpTimer: Duration?
    private var waits: [Int: Duration] = [:]
    private var nextWaitID = 0
    private var reminder: (at: Duration, gapsLeft: ArraySlice<Duration>)?

    /// The earliest deadline, nil when nothing is waited for.
    var next: Duration? {
        [smpTimer, waits.values.min(), reminder?.at].compactMap { $0 }.min()
    }

    var remindsCentral: Bool { reminder != nil }

    /// (Re)starts the SMP timer: every SMP command sent or received while pairing.
    mutating func startSMPTimer(now: Duration, timeout: Duration) {
        smpTimer = now + timeout
    }

    mutating func stopSMPTimer() {
        smpTimer = nil
    }

    /// A caller waits until `deadline`; the id names it in `.wait(id:)` and `endWait`.
    mutating func startWait(until deadline: Duration) -> Int {
        nextWaitID += 1
        waits[nextWaitID] = deadline
        return nextWaitID
    }

    mutating func endWait(_ id: Int) {
        waits[id] = nil
    }

    /// The first Security Request went out at `now`: reminders follow, unless already under way.
    mutating func startReminders(now: Duration) {
        guard reminder == nil, let first = Self.reminderGaps.first else { return }
        reminder = (now + first, Self.reminderGaps.dropFirst())
    }

    mutating func stopReminders() {
        reminder = nil
    }

    /// Everything due at `now`, each reported once: the SMP timer and waits end, a reminder
    /// moves on to the next gap (or ends after the last).
    mutating func expire(now: Duration) -> [Expiry] {
        var expired: [Expiry] = []
        if let at = smpTimer, at <= now {
            smpTimer = nil
            expired.append(.smpTimer)
        }
        for (id, deadline) in waits.sorted(by: { $0.key < $1.key }) where deadline <= now {
            waits[id] = nil
            expired.append(.wait(id: id))
        }
        if let (at, gaps) = reminder, at <= now {
            reminder = gaps.first.map { (at + $0, gaps.dropFirst()) }
            expired.append(.securityRequestReminder)
        }
        return expired
    }

    /// The link is down: nothing more is due.
    mutating func stopAll() {
        smpTimer = nil
        waits = [:]
        reminder = nil
    }
}
