#if canImport(Glibc)
import Glibc
#endif

/// Starts a detached POSIX thread running `body` (a replay's reader, a virtual-time driver). The
/// closure is `sending`, so whatever it captures belongs to the new thread alone.
package func spawnDetachedThread(_ body: sending @escaping () -> Void) throws(TransportError) {
    final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { raw in
        guard let raw else { return nil }
        Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
        return nil
    }, context)
    guard result == 0 else {
        Unmanaged<Body>.fromOpaque(context).release()
        throw .systemCall(call: "pthread_create", errno: result)
    }
    pthread_detach(thread)
}

/// Runs `work` on a thread of its own (at once on the caller's where none can be started): for
/// what may block, a bond store's file and its lock, away from the reader's thread and from
/// Swift's cooperative pool.
package func runOnThreadOfItsOwn(_ work: @escaping @Sendable () -> Void) {
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
