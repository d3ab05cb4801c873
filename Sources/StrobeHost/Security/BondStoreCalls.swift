import StrobeBase
import StrobeHCI

extension SecurityManager {
    /// Runs `work`, which calls the bond store, where it may block: on a thread of its own when
    /// the store blocks, else posted to the link's `loop` (never waiting for the app's pool).
    package func callingStore(on loop: HostLoop, _ work: @escaping @Sendable () -> Void) {
        if store?.blocks == true {
            runOnThreadOfItsOwn(work)
        } else {
            loop.post(work)
        }
    }

    /// `callingStore` for an async caller: on a thread of its own when the store blocks, else at
    /// once; resumes with what `work` returned or threw.
    package func callingStore<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        guard store?.blocks == true else { return try work() }
        return try await onThreadOfItsOwn(work)
    }
}
