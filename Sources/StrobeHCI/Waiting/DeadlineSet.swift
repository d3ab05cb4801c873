/// Deadlines by key, as a machine without a clock: its owner sets and clears them, hands `next`
/// to its one `DeadlineTimer`, and gives the time back to `expire`, which takes out every key due.
/// Times are durations on the owner's time line (`DeadlineTimer.now`).
package struct DeadlineSet<Key: Hashable & Sendable>: Sendable {
    private var deadlines: [Key: Duration] = [:]

    package init() {}

    /// The earliest deadline, nil when nothing is waited for.
    package var next: Duration? { deadlines.values.min() }

    package var isEmpty: Bool { deadlines.isEmpty }

    package func deadline(of key: Key) -> Duration? { deadlines[key] }

    /// Sets (or moves) `key`'s deadline.
    package mutating func set(_ key: Key, at deadline: Duration) {
        deadlines[key] = deadline
    }

    package mutating func clear(_ key: Key) {
        deadlines[key] = nil
    }

    package mutating func removeAll() {
        deadlines = [:]
    }

    /// Every key due at `now`, earliest first, each taken out: reported once.
    package mutating func expire(now: Duration) -> [Key] {
        let due = deadlines.filter { $0.value <= now }.sorted { $0.value < $1.value }.map(\.key)
        for key in due { deadlines[key] = nil }
        return due
    }
}
