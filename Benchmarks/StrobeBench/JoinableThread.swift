import Foundation

/// A POSIX thread the bench joins before it goes on: Foundation's `Thread` may be released while
/// its thread is still winding down, which aborts the process now and then.
final class JoinableThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private var thread = pthread_t()

    init(_ body: @escaping () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let result = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
    }

    func join() {
        pthread_join(thread, nil)
    }
}

/// `sched_setaffinity` (a GNU extension the Swift Glibc module does not export), looked up once.
private let setAffinity: (@convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_setaffinity") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32).self)
}()

/// Keeps the calling thread on one CPU, so that a two-thread measurement runs on two cores
/// instead of being moved about; returns whether it took.
@discardableResult
func pinCurrentThread(toCPU cpu: Int) -> Bool {
    // A cpu_set_t is 1024 bits; CPU_SET is a C macro, so the mask is built by hand.
    guard cpu >= 0, cpu < 1024, let setAffinity else { return false }
    var mask = [UInt64](repeating: 0, count: 16)
    mask[cpu / 64] |= 1 << UInt64(cpu % 64)
    return mask.withUnsafeBytes { setAffinity(0, $0.count, $0.baseAddress!) } == 0
}

/// Lets the calling thread run on every CPU again.
func unpinCurrentThread() {
    guard let setAffinity else { return }
    let mask = [UInt64](repeating: .max, count: 16)
    _ = mask.withUnsafeBytes { setAffinity(0, $0.count, $0.baseAddress!) }
}
