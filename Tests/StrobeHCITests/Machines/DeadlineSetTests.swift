import Testing
import StrobeHCI

/// Keyed deadlines driven by scripted times: no clock.
@Suite struct DeadlineSetTests {
    @Test func theEarliestIsNextAndEachExpiresOnceInOrder() {
        var set = DeadlineSet<String>()
        #expect(set.next == nil && set.isEmpty)
        set.set("late", at: .seconds(30))
        set.set("early", at: .seconds(5))
        set.set("middle", at: .seconds(10))
        #expect(set.next == .seconds(5))
        #expect(set.expire(now: .seconds(4)).isEmpty)
        #expect(set.expire(now: .seconds(10)) == ["early", "middle"])
        #expect(set.expire(now: .seconds(10)).isEmpty)
        #expect(set.next == .seconds(30))
        #expect(set.expire(now: .seconds(100)) == ["late"])
        #expect(set.isEmpty)
    }

    /// Keys due at the same time expire in the order they were set, whatever their hashes.
    @Test func tiesExpireInTheOrderTheyWereSet() {
        var set = DeadlineSet<Int>()
        let keys = Array((0..<50).reversed())
        for key in keys { set.set(key, at: .seconds(1)) }
        #expect(set.expire(now: .seconds(1)) == keys)
    }

    @Test func aMovedOrClearedDeadlineCountsAsItIsNow() {
        var set = DeadlineSet<Int>()
        set.set(1, at: .seconds(5))
        set.set(1, at: .seconds(20))
        set.set(2, at: .seconds(6))
        set.clear(2)
        #expect(set.deadline(of: 1) == .seconds(20) && set.deadline(of: 2) == nil)
        #expect(set.expire(now: .seconds(10)).isEmpty)
        #expect(set.expire(now: .seconds(20)) == [1])
        set.set(3, at: .seconds(1))
        set.removeAll()
        #expect(set.next == nil && set.expire(now: .seconds(100)).isEmpty)
    }

    /// The heap against a plain list, over many seeded operations: the same earliest deadline,
    /// and the same keys expiring in the same order.
    @Test func aHeapOfManyKeysAgreesWithAPlainList() {
        var set = DeadlineSet<Int>()
        var model: [(key: Int, at: Duration, order: Int)] = []
        var order = 0
        var random = SeededGenerator(seed: 51)
        var now = Duration.zero
        for _ in 0..<5_000 {
            let key = Int(random.next() % 300)
            switch random.next() % 10 {
            case 0..<6:
                let at = now + .milliseconds(Int64(random.next() % 5_000))
                order += 1
                model.removeAll { $0.key == key }
                model.append((key, at, order))
                set.set(key, at: at)
            case 6..<8:
                model.removeAll { $0.key == key }
                set.clear(key)
            default:
                now += .milliseconds(Int64(random.next() % 400))
                let due = model.filter { $0.at <= now }.sorted { ($0.at, $0.order) < ($1.at, $1.order) }
                model.removeAll { $0.at <= now }
                #expect(set.expire(now: now) == due.map(\.key))
            }
            #expect(set.next == model.map(\.at).min())
            #expect(set.count == model.count)
        }
    }
}
