/// Deadlines by key, as a machine without a clock: its owner sets and clears them, hands `next`
/// to whatever wakes it (a `DeadlineTimer`, a `HostLoop`), and gives the time back to `expire`,
/// which takes out every key due. Times are durations on the owner's time line.
///
/// A binary heap with each key's place in it: the earliest deadline in O(1), setting, moving and
/// clearing one in O(log n), so that a loop with the deadlines of hundreds of links stays cheap.
package struct DeadlineSet<Key: Hashable & Sendable>: Sendable {
    private struct Entry: Sendable {
        var at: Duration
        /// When it was set: keys due at the same time expire in the order they were set, the
        /// same in every run.
        var order: UInt64
        var key: Key

        func precedes(_ other: Entry) -> Bool { (at, order) < (other.at, other.order) }
    }

    private var heap: [Entry] = []
    private var place: [Key: Int] = [:]
    private var setCount: UInt64 = 0

    package init() {}

    /// The earliest deadline, nil when nothing is waited for.
    package var next: Duration? { heap.first?.at }

    package var isEmpty: Bool { heap.isEmpty }

    package var count: Int { heap.count }

    package func deadline(of key: Key) -> Duration? { place[key].map { heap[$0].at } }

    /// Sets (or moves) `key`'s deadline.
    package mutating func set(_ key: Key, at deadline: Duration) {
        setCount += 1
        let entry = Entry(at: deadline, order: setCount, key: key)
        if let index = place[key] {
            heap[index] = entry
            // A moved deadline has a later order, so it can only need to go one way or the other.
            siftUp(index)
            siftDown(place[key]!)
        } else {
            heap.append(entry)
            place[key] = heap.count - 1
            siftUp(heap.count - 1)
        }
    }

    package mutating func clear(_ key: Key) {
        guard let index = place[key] else { return }
        remove(at: index)
    }

    package mutating func removeAll() {
        heap = []
        place = [:]
    }

    /// Every key due at `now`, earliest first, each taken out: reported once.
    package mutating func expire(now: Duration) -> [Key] {
        var due: [Key] = []
        while let first = heap.first, first.at <= now {
            due.append(first.key)
            remove(at: 0)
        }
        return due
    }

    // MARK: The heap

    private mutating func remove(at index: Int) {
        let removed = heap[index].key
        let last = heap.count - 1
        if index != last {
            swapAt(index, last)
        }
        heap.removeLast()
        place[removed] = nil
        if index < heap.count {
            let moved = heap[index].key
            siftUp(index)
            siftDown(place[moved]!)
        }
    }

    private mutating func swapAt(_ i: Int, _ j: Int) {
        heap.swapAt(i, j)
        place[heap[i].key] = i
        place[heap[j].key] = j
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            var first = left
            if right < heap.count, heap[right].precedes(heap[left]) { first = right }
            guard heap[first].precedes(heap[parent]) else { return }
            swapAt(first, parent)
            parent = first
        }
    }
}
