import StrobeBase

/// `startDetachedThread`, failing as a transport does: for a transport's reader thread.
package func spawnDetachedThread(_ body: sending @escaping () -> Void) throws(TransportError) {
    do {
        try startDetachedThread(body)
    } catch {
        throw .systemCall(call: "pthread_create", errno: error.rawValue)
    }
}

/// Runs `work` on a thread of its own (at once on the caller's where none can be started): for
/// what may block, a bond store's file and its lock, away from the reader's thread and from
/// Swift's cooperative pool.
package func runOnThreadOfItsOwn(_ work: @escaping @Sendable () -> Void) {
    let work = OffThreadWork.counting(work)
    do {
        try spawnDetachedThread(work)
    } catch {
        work()
    }
}

/// `runOnThreadOfItsOwn` for an async caller: resumes with what `work` returned or threw.
package func onThreadOfItsOwn<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
    let outcome: Result<T, E> = await withCheckedContinuation { continuation in
        runOnThreadOfItsOwn { continuation.resume(returning: Result { () throws(E) in try work() }) }
    }
    return try outcome.get()
}
