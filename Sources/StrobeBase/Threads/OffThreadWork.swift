import Synchronization

/// How many pieces of bounded work handed to threads of their own (a bond store's file and its
/// lock) have not finished yet. Such work ends by enqueuing a job (it resumes its caller or
/// posts to a loop), so a virtual-time driver that finds no job to run waits for its run's count
/// to fall to zero before it moves its clock: else a timer fires early, in virtual time, against
/// work that took real milliseconds.
///
/// Counted per run: a driver binds its own `Counter` (a task-local: the run's body and the tasks
/// it starts carry it, and the driver binds it around the loop work it runs, which is in no
/// task), and waits for no other run's work. Outside any run, work counts
/// in `Counter.process`, which nobody waits for.
package enum OffThreadWork {
    /// One run's pending work.
    package final class Counter: Sendable {
        package let pending = Atomic<Int>(0)

        package init() {}

        /// Work started outside every virtual-time run.
        package static let process = Counter()
    }

    /// The counter that work started here counts in.
    @TaskLocal package static var counter = Counter.process

    /// Counts `work` as pending, in the caller's counter, until it returns.
    package static func counting(_ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let counter = counter
        counter.pending.add(1, ordering: .sequentiallyConsistent)
        return {
            work()
            counter.pending.subtract(1, ordering: .sequentiallyConsistent)
        }
    }
}
