#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain OS thread for tests that need two real threads (the ring's producer and consumer),
/// joined explicitly: no sleeping, no cooperative pool.
final class TestThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    #if canImport(Glibc)
    private var thread = pthread_t()
    #else
    private var thread: pthread_t?
    #endif

    init(_ run: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(run)).toOpaque()
        let result = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
    }

    func join() {
        #if canImport(Glibc)
        pthread_join(thread, nil)
        #else
        if let thread { pthread_join(thread, nil) }
        #endif
    }
}

/// Lets the other thread run (used when the ring is full or empty).
func yieldThread() { sched_yield() }

/// CLOCK_MONOTONIC in nanoseconds, to report how long a stress test took (never asserted on).
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
