#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// Starts a detached POSIX thread running `body` (a host's loop, a replay's reader, a
/// virtual-time driver), or throws `pthread_create`'s error. The closure is `sending`, so
/// whatever it captures belongs to the new thread alone.
package func startDetachedThread(_ body: sending @escaping () -> Void) throws(Errno) {
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
        throw Errno(rawValue: result)
    }
    pthread_detach(thread)
}
