import Synchronization

/// A fixed set of equally sized buffers for outgoing ACL packets, allocated once. `acquire`
/// hands one out (or `nil` when all are in use, counted); it returns to the pool by itself when
/// the `ACLBuffer` goes away.
///
/// `@unchecked Sendable`: the storage pointer never changes, the free list is behind a `Mutex`,
/// and each buffer's bytes belong to exactly one (noncopyable) `ACLBuffer` while handed out.
public final class ACLBufferPool: @unchecked Sendable {
    public let bufferCount: Int
    public let bufferSize: Int

    private struct FreeList {
        var indices: [Int]
        var exhaustedCount = 0
    }

    private let storage: UnsafeMutableRawPointer
    private let free: Mutex<FreeList>

    /// `bufferCount` and `bufferSize` are raised to at least 1.
    public init(bufferCount: Int, bufferSize: Int) {
        self.bufferCount = max(bufferCount, 1)
        self.bufferSize = max(bufferSize, 1)
        storage = UnsafeMutableRawPointer.allocate(byteCount: self.bufferCount * self.bufferSize, alignment: 16)
        // Reserved to full size up front, so acquire and release never allocate.
        var indices: [Int] = []
        indices.reserveCapacity(self.bufferCount)
        indices.append(contentsOf: (0..<self.bufferCount).reversed())
        free = Mutex(FreeList(indices: indices))
    }

    deinit { storage.deallocate() }

    /// A free buffer, or `nil` when all are in use.
    public func acquire() -> ACLBuffer? {
        let index: Int? = free.withLock { list in
            guard let index = list.indices.popLast() else {
                list.exhaustedCount += 1
                return nil
            }
            return index
        }
        guard let index else { return nil }
        let bytes = UnsafeMutableRawBufferPointer(start: storage + index * bufferSize, count: bufferSize)
        return ACLBuffer(bytes: bytes, pool: self, index: index)
    }

    /// Buffers not handed out right now.
    public var availableCount: Int { free.withLock { $0.indices.count } }

    /// How many times `acquire` found the pool empty.
    public var exhaustedCount: Int { free.withLock { $0.exhaustedCount } }

    fileprivate func release(_ index: Int) {
        free.withLock { $0.indices.append(index) }
    }
}

/// One buffer from an `ACLBufferPool`, owned by whoever holds this value (it cannot be copied);
/// it goes back to the pool when the value is dropped.
///
/// `@unchecked Sendable`: being noncopyable, exactly one owner can reach `bytes` at a time.
public struct ACLBuffer: ~Copyable, @unchecked Sendable {
    /// The buffer's memory, `ACLBufferPool.bufferSize` bytes.
    public let bytes: UnsafeMutableRawBufferPointer
    private let pool: ACLBufferPool
    private let index: Int

    fileprivate init(bytes: UnsafeMutableRawBufferPointer, pool: ACLBufferPool, index: Int) {
        self.bytes = bytes
        self.pool = pool
        self.index = index
    }

    deinit { pool.release(index) }
}
