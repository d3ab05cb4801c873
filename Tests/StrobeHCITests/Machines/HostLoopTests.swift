import Foundation
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

    /// A loop asked for a raised priority runs at nice -10 where the process may ask for it (as
    /// a fresh thread finds out), else as any thread; a normal loop as any thread. A thread a
    /// raised loop starts (as Dispatch does when the loop resumes an app's task) begins at 0.
    @Test(arguments: [ThreadScheduling.raisedWherePermitted, .normal])
    func theLoopsThreadIsRunAsAsked(_ scheduling: ThreadScheduling) async throws {
        let loop = HostLoop(clock: ContinuousClock(), scheduling: scheduling)
        let seen = Waiter<(policy: Int32, nice: Int32)>()
        let child = Waiter<Int32>()
        loop.post {
            var policy: Int32 = 0
            var parameters = sched_param()
            pthread_getschedparam(pthread_self(), &policy, &parameters)
            seen.resolve(.success((policy, Self.niceValue())))
            Thread.detachNewThread { child.resolve(.success(Self.niceValue())) }
        }
        let (policy, nice) = try await seen.wait()
        // What a fresh thread gets, and the nice value it started with (the process's own).
        let granted = Waiter<(Bool, Int32)>()
        Thread.detachNewThread {
            let before = Self.niceValue()
            granted.resolve(.success((scheduling.applyToCurrentThread(), before)))
        }
        let (raised, processNice) = try await granted.wait()
        #expect(policy & ~ThreadScheduling.resetOnFork == SCHED_OTHER)
        #expect((policy & ThreadScheduling.resetOnFork != 0) == raised)
        #expect(nice == (raised ? ThreadScheduling.raisedNice : processNice))
        #expect(try await child.wait() == (raised ? 0 : processNice))
    }

    /// The calling thread's nice value (on Linux each thread has its own).
    static func niceValue() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }

    /// Three timers: the one moved earlier fires first, the stopped one never (neither the
    /// deadline it had nor one set after the stop), each at or after its deadline.
    @Test func timersFireEarliestFirstAndAStoppedOneNever() async {
        let loop = HostLoop(clock: ContinuousClock())
        let fired = Lock<[(String, Duration)]>([])
        let done = Waiter<Void>()
        let late = DeadlineTimer(loop: loop)
        let moved = DeadlineTimer(loop: loop)
        let stopped = DeadlineTimer(loop: loop)
        late.onFire { now in
            fired.withLock { $0.append(("late", now)) }
            done.resolve(.success(()))
        }
        moved.onFire { now in fired.withLock { $0.append(("moved", now)) } }
        stopped.onFire { now in fired.withLock { $0.append(("stopped", now)) } }
        // Deadlines a second and more away: what happens before them is a few calls.
        let now = late.now
        late.schedule(now + .milliseconds(1600))
        moved.schedule(now + .seconds(30))
        stopped.schedule(now + .seconds(1))
        moved.schedule(now + .milliseconds(1300))
        stopped.stop()
        stopped.schedule(now + .milliseconds(1100))
        try? await done.wait()
        let record = fired.withLock { $0 }
        #expect(record.map(\.0) == ["moved", "late"])
        #expect(record.first.map { $0.1 >= now + .milliseconds(1300) } == true)
        #expect(record.last.map { $0.1 >= now + .milliseconds(1600) } == true)
    }

    /// A task that prefers the loop's executor runs on the loop's thread, also after it waited
    /// for something another thread resolved and after it yielded (each resumption is a job the
    /// executor took).
    @Test func aTaskPreferringTheLoopRunsOnItsThreadAcrossSuspensions() async throws {
        let loop = HostLoop(clock: ContinuousClock())
        let executor = try #require(loop.executor)
        let resumed = Waiter<Void>()
        let task = Task(executorPreference: executor) { () -> [Bool] in
            let first = loop.inLoop
            try? await resumed.wait()
            let afterWait = loop.inLoop
            await Task.yield()
            return [first, afterWait, loop.inLoop]
        }
        Thread.detachNewThread { resumed.resolve(.success(())) }
        #expect(await task.value == [true, true, true])
    }

    /// Once the loop has stopped, a task that prefers its executor still finishes: its jobs go
    /// to the global executor (dropped, the task would never end, and the time limit fails it).
    @Test func aTaskPinnedToAStoppedLoopStillFinishes() async throws {
        var loop: HostLoop? = HostLoop(clock: ContinuousClock())
        let executor = try #require(loop?.executor)
        let started = Waiter<Void>()
        let resumed = Waiter<Void>()
        let task = Task(executorPreference: executor) { () -> Bool in
            started.resolve(.success(()))
            try? await resumed.wait()
            // A job more, after the stop.
            await Task.yield()
            return true
        }
        try await started.wait()
        loop = nil
        resumed.resolve(.success(()))
        #expect(await task.value)
    }

    /// A loop on a virtual clock has no thread: its tasks and its posted work go through the
    /// clock's scheduler, queued there while a driver drives it, in the order they came.
    @Test func aLoopOnAVirtualClockRunsThroughTheClocksScheduler() async {
        let clock = VirtualClock()
        let loop = HostLoop(clock: clock)
        #expect(!loop.hasThread && !loop.inLoop)
        #expect(loop.executor.map(ObjectIdentifier.init) == ObjectIdentifier(clock.scheduler))
        #expect(clock.scheduler.beginDriving())
        let order = Lock<[Int]>([])
        loop.post { order.withLock { $0.append(1) } }
        let task = Task(executorPreference: loop.executor) { order.withLock { $0.append(2) } }
        loop.post { order.withLock { $0.append(3) } }
        #expect(order.withLock { $0 }.isEmpty, "nothing runs until the driver runs it")
        while clock.scheduler.runNext() {}
        await task.value
        #expect(order.withLock { $0 } == [1, 2, 3])
        #expect(clock.scheduler.endDriving() == 0)
    }
}
