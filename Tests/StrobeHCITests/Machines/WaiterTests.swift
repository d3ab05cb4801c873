import StrobeBase
import Synchronization
import Testing
import StrobeHCI

/// The one waiter primitive: resumed exactly once whoever races to end it.
@Suite(.timeLimit(.minutes(1))) struct WaiterTests {
    struct Closed: Error, Equatable {}

    final class Count: Sendable {
        private let value = Atomic<Int>(0)
        func bump() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    @Test func anOutcomeBeforeTheWaitIsKept() async throws {
        let waiter = Waiter<Int>()
        #expect(waiter.succeed(7))
        #expect(!waiter.fail(Closed()))
        #expect(try await waiter.wait() == 7)
    }

    @Test func cancellationResolvesAndTellsTheOwnerOnce() async throws {
        let waiter = Waiter<Int>()
        let told = Count()
        let task = Task { try await waiter.wait { told.bump() } }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // The answer that comes later is ignored; the owner heard of the cancel once.
        #expect(!waiter.succeed(1))
        #expect(told.count == 1)
    }

    @Test func aCancelThatLosesToTheAnswerTellsNobody() async throws {
        let waiter = Waiter<Int>()
        let told = Count()
        waiter.succeed(3)
        let task = Task { try await waiter.wait { told.bump() } }
        task.cancel()
        #expect(try await task.value == 3)
        #expect(told.count == 0)
    }

    /// A wait through cancellation tells the owner and goes on waiting for the owner's outcome.
    @Test func waitingThroughCancellationKeepsWaitingForTheOutcome() async throws {
        let waiter = Waiter<Int>()
        let (told, tell) = AsyncStream.makeStream(of: Void.self)
        let task = Task { try await waiter.waitThroughCancellation { tell.yield() } }
        task.cancel()
        var heard = told.makeAsyncIterator()
        _ = await heard.next()
        #expect(!waiter.isResolved)
        #expect(waiter.succeed(5))
        #expect(try await task.value == 5)
    }

    /// Thousands of waiters, each raced by an answer, a close and a cancellation from other
    /// threads: every one ends exactly once, with one of the three.
    @Test func concurrentAnswerCloseAndCancelResumeEachWaiterOnce() async throws {
        let count = 5_000
        let waiters = (0..<count).map { _ in Waiter<Int>() }
        let decided = Count()
        let cancelsTold = Count()
        try await withThrowingTaskGroup(of: Int.self) { group in
            var tasks: [Task<Int, any Error>] = []
            for (index, waiter) in waiters.enumerated() {
                tasks.append(Task {
                    do {
                        return try await waiter.wait { cancelsTold.bump() }
                    } catch is Closed {
                        return -1
                    } catch is CancellationError {
                        return -2
                    }
                })
                _ = index
            }
            group.addTask {
                for (index, waiter) in waiters.enumerated() where waiter.succeed(index) { decided.bump() }
                return 0
            }
            group.addTask {
                for waiter in waiters.reversed() where waiter.fail(Closed()) { decided.bump() }
                return 0
            }
            let chosen = tasks.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
            group.addTask {
                for task in chosen { task.cancel() }
                return 0
            }
            for try await _ in group {}
            var answered = 0, closed = 0, cancelled = 0
            for (index, task) in tasks.enumerated() {
                switch try await task.value {
                case -1: closed += 1
                case -2: cancelled += 1
                case let value:
                    #expect(value == index)
                    answered += 1
                }
            }
            #expect(answered + closed + cancelled == count)
            // Every waiter was decided once: by the answer, the close or a cancellation.
            #expect(decided.count + cancelsTold.count == count)
            #expect(cancelled == cancelsTold.count)
        }
    }
}

/// One timer per owner, on a virtual clock: an entry in the clock's timers, no task.
@Suite(.timeLimit(.minutes(1))) struct DeadlineTimerTests {
    @Test func firesAtTheDeadlineLastGivenAndStopsWhenNothingIsLeft() async throws {
        let clock = VirtualClock()
        let fired = Lock<[Duration]>([])
        let timer = DeadlineTimer(clock: clock)
        timer.onFire { now in fired.withLock { $0.append(now) } }
        // The owner gives its machine's earliest deadline each time: the last one given is it.
        timer.schedule(.seconds(5))
        timer.schedule(.seconds(9))
        timer.schedule(.seconds(2))
        #expect(clock.sleeperCount == 1 && clock.nextDeadline == .init(offset: .seconds(2)))
        clock.advance(by: .seconds(2))
        await waitUntil { fired.withLock { $0 } == [.seconds(2)] }
        timer.schedule(.seconds(3))
        await clock.waitForSleepers(count: 1)
        timer.schedule(nil)
        #expect(clock.sleeperCount == 0)
        clock.advance(by: .seconds(10))
        timer.stop()
        timer.schedule(.seconds(20))
        #expect(clock.sleeperCount == 0)
        #expect(fired.withLock { $0 } == [.seconds(2)])
    }

    private func waitUntil(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }
}
