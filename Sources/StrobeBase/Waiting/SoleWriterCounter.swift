import Synchronization

extension Atomic where Value == Int {
    /// Counts one more, for a counter that only one thread writes (the transport's reader):
    /// a relaxed load and store, which other threads may read at any time, where an atomic add
    /// would be a locked read-modify-write on every packet.
    @inlinable
    package func incrementBySoleWriter() {
        store(load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }
}

extension Atomic where Value == UInt64 {
    /// As for `Int`: one writer, any number of readers.
    @inlinable
    package func incrementBySoleWriter() {
        store(load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }
}
