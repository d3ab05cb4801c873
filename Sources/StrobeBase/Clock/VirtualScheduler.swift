import Dispatch
import Synchronization

/// The one queue a virtual-time run goes through: every job of a task that prefers it as its
/// executor, and every piece of work posted to a host loop on its `VirtualClock`. While a driver
/// drives it (`VirtualTimeDriver`), what comes waits here, and the driver's thread runs it one at
/// a time, in order, moving the clock only once nothing is left. Never driven, it passes
/// everything on to the global concurrent executor, so a `VirtualClock` moved by hand works as
/// any clock does. Once a run has ended, what its hosts and devices still do runs one at a time,
/// in order, on a serial queue: never two jobs of a run at once, during it or after.
///
/// Each `VirtualClock` has one (`VirtualClock.executor`): every host, the air and the test's own
/// tasks of one run share it. Whatever should keep the run's order must run here: a task started
/// inside a run with `Task {}` does not (an unstructured task inherits no executor preference), and
/// a sleep on the clock from such a task is counted as an escape, which fails the run.
package final class VirtualScheduler: TaskExecutor {
    /// Taken by the driver's thread and by every thread that enqueues (a sleep on a real clock
    /// wakes on one of Dispatch's): they meet here by design.
    private let state = Lock(State())

    /// Where what comes after a run goes, one at a time.
    private let afterRun = DispatchQueue(label: "strobe.virtual-time.after-run")

    private enum Mode {
        case undriven
        case driven
        case ended
    }

    private struct State {
        var mode = Mode.undriven
        var items: [Item] = []
        var head = 0
        /// Sleeps on the clock, during the run, from tasks that do not run here.
        var escapes = 0

        mutating func next() -> Item? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
            return item
        }
    }

    private enum Item: Sendable {
        case job(UnownedJob)
        case work(@Sendable () -> Void)
    }

    package init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let mode = state.withLock { s in
            if s.mode == .driven { s.items.append(.job(job)) }
            return s.mode
        }
        switch mode {
        case .driven: break
        case .undriven: globalConcurrentExecutor.enqueue(ExecutorJob(job))
        case .ended: afterRun.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// Runs `work` after everything queued before it; never driven, in a task of its own that
    /// prefers this executor (in no order, as any tasks on the global executor).
    package func post(_ work: @escaping @Sendable () -> Void) {
        let mode = state.withLock { s in
            if s.mode == .driven { s.items.append(.work(work)) }
            return s.mode
        }
        switch mode {
        case .driven: break
        case .undriven: Task(executorPreference: self) { work() }
        case .ended: afterRun.async { work() }
        }
    }

    /// Counts a sleep on the clock by a task that does not run here, while driven.
    package func checkSleeper() {
        guard state.withLock({ $0.mode == .driven }) else { return }
        let here = withUnsafeCurrentTask { $0?.unownedTaskExecutor } == asUnownedTaskExecutor()
        if !here { state.withLock { $0.escapes += 1 } }
    }

    // MARK: The driver's side

    /// Starts queueing; false when a driver drives it already, or drove it (what its run left
    /// may still be running after it).
    package func beginDriving() -> Bool {
        state.withLock { s in
            guard s.mode == .undriven else { return false }
            s = State(mode: .driven)
            return true
        }
    }

    /// Runs the next queued item on the calling thread; false when none is queued.
    package func runNext() -> Bool {
        guard let item = state.withLock({ $0.next() }) else { return false }
        switch item {
        case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
        case .work(let work): work()
        }
        return true
    }

    /// Stops queueing and hands what is still queued, and whatever comes later, to the serial
    /// queue (what a run leaves behind still runs, one at a time); returns how many sleeps
    /// escaped the run.
    package func endDriving() -> Int {
        state.withLock { s in
            let left = Array(s.items[s.head...])
            let escapes = s.escapes
            s = State(mode: .ended)
            // Queued under the lock, as one block: what comes after goes after it.
            afterRun.async {
                for item in left {
                    switch item {
                    case .job(let job): job.runSynchronously(on: self.asUnownedTaskExecutor())
                    case .work(let work): work()
                    }
                }
            }
            return escapes
        }
    }
}

extension Clock where Duration == Swift.Duration {
    /// Where a task timed on this clock runs: a `VirtualClock`'s scheduler, so that the task
    /// keeps a virtual-time run's order; nil (the app's pool, as `Task {}`) on any other clock.
    package var taskExecutor: (any TaskExecutor)? { (self as? VirtualClock)?.scheduler }
}
