import Synchronization

/// How many pieces of bounded work handed to threads of their own (a bond store's file and its
/// lock) have not finished yet, process-wide. Such work ends by enqueuing a job (it resumes its
/// caller or posts to a loop), so a virtual-time driver that finds no job to run waits for this
/// to fall to zero before it moves its clock: else a timer fires early, in virtual time, against
/// work that took real milliseconds.
package enum OffThreadWork {
    package static let pending = Atomic<Int>(0)

    /// Counts `work` as pending until it returns.
    package static func counting(_ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        pending.add(1, ordering: .sequentiallyConsistent)
        return {
            work()
            pending.subtract(1, ordering: .sequentiallyConsistent)
        }
    }
}
