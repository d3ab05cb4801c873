/// Deadlines by key, as a machine without a clock: its owner sets and clears them, hands `next`
/// to its one `DeadlineTimer`, and gives the time back to `expire`, which takes out every key due.
/// Times are durations on the owner's time line (`DeadlineTimer.now`).
package struct DeadlineSet<Key: Hashable & Sendable>: Sendable {
    /// Each key's deadline, and the order it was set in: keys due at the same time expire in
    /// the order they were set, the same in every run.
    private var deadlines: [Key: (at: Duration, order: UInt64)] = [:]
    private var setCount: UInt64 = 0

    package init() {}

    /// The earliest deadline, nil when nothing is waited for.
    package var next: Duration? { deadlines.values.map(\.at).min() }

    package var isEmpty: Bool { deadlines.isEmpty }

    package func deadline(of key: Key) -> Duration? { deadlines[key]?.at }

    /// Sets (or moves) `key`'s deadline.
    package mutating func set(_ key: Key, at deadline: Duration) {
        setCount += 1
        deadlines[key] = (deadline, setCount)
    }

    package mutating func clear(_ key: Key) {
        deadlines[key] = nil
    }

    package mutating func removeAll() {
        deadlines = [:]
    }

    /// Every key due at `now`, earliest first, each taken out: reported once.
    package mutating func expire(now: Duration) -> [Key] {
        let due = deadlines.filter { $0.value.at <= now }
            .sorted { ($0.value.at, $0.value.order) < ($1.value.at, $1.value.order) }.map(\.key)
        for key in due { deadlines[key] = nil }
        return due
    }
}
