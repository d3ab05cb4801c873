import StrobeHCI

extension SecurityManager {
    /// Runs `work`, which calls the bond store, where it may block: on a thread of its own when
    /// the store blocks, else as a task on the pool (where a virtual clock sees it).
    package func callingStore(_ work: @escaping @Sendable () -> Void) {
        if store?.blocks == true {
            runOnThreadOfItsOwn(work)
        } else {
            Task { work() }
        }
    }

    /// `callingStore` for an async caller: on a thread of its own when the store blocks, else at
    /// once; resumes with what `work` returned or threw.
    package func callingStore<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        guard store?.blocks == true else { return try work() }
        return try await onThreadOfItsOwn(work)
    }
}
