#if canImport(Glibc)
import Glibc
#endif

/// `SO_RCVLOWAT` on a TCP socket carrying H4, set from what the sink says will follow: while the
/// only link is part-way through a PDU, the reader's next `read()` returns once the rest of it
/// can be there, not at each fragment. Each wakeup of a sleeping reader costs more CPU than the
/// work of the packets it reads (most of Strobe's CPU per notification over TCP).
///
/// A mark above 1 comes with `SO_RCVTIMEO`, so that a PDU whose fragments stop coming (a link
/// lost part-way, fragments spread over connection events) holds the reader for at most the
/// bound; the bound is lifted once the reader finds the socket idle. The reader's thread only.
struct ReceiveLowWaterMark {
    /// The most data one controller ACL packet carries in practice: a whole LE data PDU's
    /// payload (251 bytes). Counting a header per this many bytes keeps the mark a lower bound.
    static let largestFragment = 251
    /// H4's packet type byte and the ACL header, before each fragment's data.
    static let bytesBeforeFragment = 1 + ACLHeader.size
    /// How long a raised mark may hold the reader; the kernel rounds it up to its tick.
    static let bound = timeval(tv_sec: 0, tv_usec: 1000)

    private let fd: Int32
    private let readBufferSize: Int
    private(set) var mark = 1
    private(set) var bounded = false
    /// Set when the socket refused an option: the reader then reads as before.
    private(set) var failed = false

    init(fd: Int32, readBufferSize: Int) {
        self.fd = fd
        self.readBufferSize = readBufferSize
    }

    /// The H4 bytes at least that `owed` ACL data bytes arrive in: the data, and a packet type
    /// and ACL header for each fragment it needs at the most a fragment carries.
    static func bytes(forOwedData owed: Int) -> Int {
        guard owed > 0 else { return 1 }
        return owed + bytesBeforeFragment * ((owed + largestFragment - 1) / largestFragment)
    }

    /// After a read's packets: waits for `owed` ACL data bytes at the next read (0: for any byte).
    mutating func follow(owedData owed: Int) {
        guard !failed else { return }
        let wanted = min(Self.bytes(forOwedData: owed), readBufferSize)
        if wanted > 1, !bounded {
            guard set(SO_RCVTIMEO, Self.bound) else { return }
            bounded = true
        }
        if wanted != mark {
            guard set(SO_RCVLOWAT, Int32(wanted)) else { return }
            mark = wanted
        }
    }

    /// A read found nothing within the bound: the socket is idle (or a PDU stalled). Reads go
    /// back to returning at the first byte, without a bound.
    mutating func readTimedOut() {
        guard !failed else { return }
        if mark != 1 {
            guard set(SO_RCVLOWAT, Int32(1)) else { return }
            mark = 1
        }
        if bounded {
            guard set(SO_RCVTIMEO, timeval(tv_sec: 0, tv_usec: 0)) else { return }
            bounded = false
        }
    }

    private mutating func set<Value: BitwiseCopyable>(_ option: Int32, _ value: Value) -> Bool {
        if Self.setOption(fd, option, value) { return true }
        // Back to plain reads, as far as the socket lets us, and no more tries.
        _ = Self.setOption(fd, SO_RCVLOWAT, Int32(1))
        _ = Self.setOption(fd, SO_RCVTIMEO, timeval(tv_sec: 0, tv_usec: 0))
        failed = true
        return false
    }

    private static func setOption<Value: BitwiseCopyable>(_ fd: Int32, _ option: Int32, _ value: Value) -> Bool {
        var value = value
        return setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<Value>.size)) == 0
    }
}
