import Strobe

/// The decode work over one H4 stream that may carry several links: one connection per handle,
/// each into a ring of its own, every ring drained and its values through the stylus codec after
/// each 64 KiB read (what one read() of a descriptor transport takes). `decode` and `scale`
/// both measure through it, so a capture of many links is timed the same way as a generated one.
enum LinksDecode {
    struct Measured {
        /// Notifications taken in the timed part.
        var notifications: Int
        /// Notifications taken in all, the warm-up's too.
        var taken: Int
        /// Samples decoded in all, the warm-up's too.
        var samples: Int
        var nanoseconds: UInt64
        var allocations: Int?
        /// Heap bytes allocated and not freed while the links open (the rings made before).
        var heapBytesOpened: Int?
        var dropped: Int
        var decodeErrors: Int
        var malformed: Int

        var nanosecondsPerNotification: Double { Double(nanoseconds) / Double(max(notifications, 1)) }
    }

    static let chunkSize = 64 * 1024

    /// The connection handles of the stream's ACL packets, in order of first appearance.
    static func connectionHandles(in stream: [UInt8]) throws -> [UInt16] {
        var handles: [UInt16] = []
        var seen = Set<UInt16>()
        var deframer = H4Deframer()
        try stream.withUnsafeBytes { bytes in
            try deframer.feed(bytes) { type, payload in
                guard type == .acl, payload.count >= 2 else { return }
                let handle = UInt16(payload[0]) | UInt16(payload[1] & 0x0F) << 8
                if seen.insert(handle).inserted { handles.append(handle) }
            }
        }
        return handles
    }

    /// Runs the first tenth of `stream` to warm up and times the rest.
    static func measure(_ stream: [UInt8], handles: [UInt16]) async throws -> Measured {
        // Room for a read's worth of notifications over all the rings (one 64 KiB read holds about 1,000).
        let capacity = max(64, 4096 / max(handles.count, 1))
        let rings = handles.map { _ in NotificationRing(capacity: capacity, maxValueSize: 512) }
        let (path, retained) = try await Allocations.retainedBytes {
            try await ReceivePath(connectionHandles: handles, handlers: rings)
        }
        defer { path.close() }
        var consumers = [Consumer](repeating: Consumer(), count: rings.count)

        func pass(_ range: Range<Int>) throws {
            // The consumers through a pointer: an array element in the closure costs an
            // exclusivity check per notification.
            try consumers.withUnsafeMutableBufferPointer { consumers in
                try stream.withUnsafeBytes { bytes in
                    var offset = range.lowerBound
                    while offset < range.upperBound {
                        let end = min(offset + chunkSize, range.upperBound)
                        try path.feed(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), at: HostTime(nanoseconds: nowNanoseconds()))
                        for index in rings.indices { rings[index].drain { consumers[index].take($0) } }
                        offset = end
                    }
                }
            }
        }
        // Whole chunks, so that both passes see the same chunking.
        let split = stream.count / 10 / chunkSize * chunkSize
        try pass(0..<split)
        let warm = consumers.reduce(0) { $0 + $1.notifications }
        let start = nowNanoseconds()
        var elapsed: UInt64 = 0
        let allocations = try Allocations.count {
            try pass(split..<stream.count)
            elapsed = nowNanoseconds() - start
        }
        return Measured(
            notifications: consumers.reduce(0) { $0 + $1.notifications } - warm,
            taken: consumers.reduce(0) { $0 + $1.notifications },
            samples: consumers.reduce(0) { $0 + $1.samples },
            nanoseconds: elapsed, allocations: allocations, heapBytesOpened: retained,
            dropped: rings.reduce(0) { $0 + Int($1.counters.dropped) },
            decodeErrors: consumers.reduce(0) { $0 + $1.decodeErrors }, malformed: path.malformed)
    }

    /// The application's side: each notification through the stylus codec, its events dropped.
    struct Consumer {
        var decoder = StylusSampleDecoder()
        var samples = 0
        var notifications = 0
        var decodeErrors = 0

        mutating func take(_ view: NotificationView) {
            notifications += 1
            do {
                samples += try decoder.decode(view.value, receivedAt: view.timestamp) { _ in }
            } catch {
                decodeErrors += 1
            }
        }
    }
}
