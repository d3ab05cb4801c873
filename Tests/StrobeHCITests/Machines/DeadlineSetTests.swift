import Testing
@testable import StrobeHCI

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
}
