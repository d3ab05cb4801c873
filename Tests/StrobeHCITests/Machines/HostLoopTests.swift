import StrobeBase
import Synchronization
import Testing

/// The host's loop on the real clock: its own thread runs posted work in order and fires
/// deadlines, earliest first; on a virtual clock it has no thread.
@Suite(.timeLimit(.minutes(1))) struct HostLoopTests {
    @Test func postedWorkRunsInOrderOnTheLoopsThread() async {
        let loop = HostLoop(clock: ContinuousClock())
        let ran = Lock<[(Int, Bool)]>([])
        let done = Waiter<Void>()
        for index in 0..<100 {
            loop.post {
                ran.withLock { $0.append((index, loop.inLoop)) }
                if index == 99 { done.resolve(.success(())) }
            }
        }
        try? await done.wait()
        let record = ran.withLock { $0 }
        #expect(record.map(\.0) == Array(0..<100))
        #expect(record.allSatisfy { $0.1 })
        #expect(!loop.inLoop)
    }

    /// Three timers: the one moved earlier fires first, the stopped one never, each once.
    @Test func timersFireEarliestFirstAndAStoppedOneNever() async {
        let loop = HostLoop(clock: ContinuousClock())
        let fired = Lock<[String]>([])
        let done = Waiter<Void>()
        let late = DeadlineTimer(loop: loop)
        let moved = DeadlineTimer(loop: loop)
        let stopped = DeadlineTimer(loop: loop)
        late.onFire { _ in
            fired.withLock { $0.append("late") }
            done.resolve(.success(()))
        }
        moved.onFire { _ in fired.withLock { $0.append("moved") } }
        stopped.onFire { _ in fired.withLock { $0.append("stopped") } }
        let now = late.now
        late.schedule(now + .milliseconds(60))
        moved.schedule(now + .seconds(30))
        stopped.schedule(now + .milliseconds(20))
        moved.schedule(now + .milliseconds(30))
        stopped.stop()
        stopped.schedule(now + .milliseconds(10))
        try? await done.wait()
        #expect(fired.withLock { $0 } == ["moved", "late"])
        #expect(late.now >= now + .milliseconds(60))
    }

    @Test func aLoopOnAVirtualClockHasNoThread() {
        let loop = HostLoop(clock: VirtualClock())
        #expect(!loop.hasThread && !loop.inLoop)
    }
}
