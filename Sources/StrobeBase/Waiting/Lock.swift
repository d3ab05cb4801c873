import Synchronization
#if canImport(Glibc)
import Glibc
#endif

#if STROBE_TSAN
/// Under ThreadSanitizer (Scripts/tsan.sh builds with STROBE_TSAN): the same lock on a pthread
/// mutex, whose hand-over TSan sees. `Synchronization.Mutex` hands over a contended lock through
/// a futex in an uninstrumented library, and TSan reports every meeting on it as a race.
package final class Lock<Value: ~Copyable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<Result: ~Copyable, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
#else
/// The stack's lock: `Synchronization.Mutex` (a ThreadSanitizer build puts one TSan can follow
/// in its place).
package typealias Lock<Value: ~Copyable> = Mutex<Value>
#endif
