#if canImport(Glibc)
import Glibc
#endif
import StrobeHCI

/// Starts a detached POSIX thread running `body`: a transport's reader thread. The closure is
/// `sending`, so whatever it captures belongs to the new thread alone.
func spawnReaderThread(_ body: sending @escaping () -> Void) throws(TransportError) {
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
