import StrobeBase
import StrobeHCI
import StrobeTestSupport
import Synchronization
import Testing
import StrobeHost

/// Deadlines on the real clock fire on the host's loop, a thread of Strobe's own: a link's
/// timeouts hold while the app keeps every thread of its pool busy.
@Suite(.timeLimit(.minutes(1))) struct DeadlinesWithThePoolBlockedTests {
    /// A Read Request the peer never answers, made once every pool thread is held (from an app
    /// task on a thread of its own): the transaction times out and the bearer closes on the
    /// loop's thread within 100 ms of the deadline.
    @Test func anATTTransactionTimesOutWithThePoolBlocked() async throws {
        let clock = ContinuousClock()
        // Run as a host's loop is (`HCIController.Configuration.threadScheduling`'s default).
        let loop = HostLoop(clock: clock, scheduling: .raisedWherePermitted)
        #expect(loop.hasThread)
        let timeout = Duration.milliseconds(300)
        let channel = FakeATTChannel()
        let sentAt = Lock<ContinuousClock.Instant?>(nil)
        // The peer hears the request and stays silent.
        channel.connect { _ in sentAt.withLock { $0 = $0 ?? clock.now } }
        let bearer = ATTBearer(channel: channel, configuration: .init(transactionTimeout: timeout), clock: clock, loop: loop)
        let client = GATTClient(bearer: bearer)
        let app = ThreadOfItsOwnExecutor()
        defer { app.stop() }

        let seen = try await withThePoolBlocked { () -> (read: Task<[UInt8], any Error>, closedAt: ContinuousClock.Instant?) in
            let read = Task(executorPreference: app) { try await client.read(handle: 2) }
            let closed = waitOnThisThread(for: .seconds(10)) { bearer.isClosed }
            return (read, closed.map { _ in clock.now })
        }
        #expect(seen.poolWasBlocked)
        let closedAt = try #require(seen.value.closedAt)
        let sent = try #require(sentAt.withLock { $0 })
        // The deadline was set a few microseconds before the peer heard the request.
        let late = sent.duration(to: closedAt) - timeout
        #expect(late > .milliseconds(-1) && late < .milliseconds(100), "closed \(late) after the deadline")
        #expect(bearer.closeReason == .transactionTimeout(request: .readRequest))
        await #expect(throws: StrobeError.bearer(.transactionTimeout(request: .readRequest))) { try await seen.value.read.value }
    }
}
