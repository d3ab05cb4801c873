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
