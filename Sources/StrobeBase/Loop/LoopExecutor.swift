/// Runs a task's jobs on a host loop's thread: a task started with this executor as its
/// preference (`Task(executorPreference: loop.executor)`) runs its nonisolated code there,
/// before and after every suspension, so it never waits for a thread of the app's pool.
///
/// Its jobs are posted work, in order with everything else the loop runs. Once the loop has
/// stopped, jobs go to the global concurrent executor instead: a task pinned to a loop still
/// finishes (and its waiters hear) after the loop is gone.
final class LoopExecutor: TaskExecutor {
    private let core: LoopCore

    init(core: LoopCore) {
        self.core = core
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !core.post(job: job, on: self) {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }
}
