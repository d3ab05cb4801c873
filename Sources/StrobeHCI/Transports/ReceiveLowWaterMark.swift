#if canImport(Glibc)
import Glibc
#endif

/// `SO_RCVLOWAT` on a TCP socket carrying H4, set from what the sink says will follow: while the
/// only link is part-way through a PDU, the reader's next `read()` returns once the rest of it
/// can be there, not at each fragment. Each wakeup of a sleeping reader costs more CPU than the
/// work of the packets it reads (most of Strobe's CPU per notification over TCP).
///
/// The mark is a lower bound on the bytes still to come, so a read never waits for bytes that
/// will not come: the owed data, one header for each of the largest packets the deframer takes
/// (so at least the packets the data needs), less what the deframer already holds of a packet
/// begun. A mark above 1 comes with `SO_RCVTIMEO`, so that a PDU whose fragments stop coming (a
/// link lost part-way, fragments spread over connection events) holds the reader for at most the
/// bound. The bound is lifted when a read finds the socket idle, not each time the mark drops:
/// while a link streams, that saves a system call per PDU. The reader's thread only.
package struct ReceiveLowWaterMark {
    /// H4's packet type byte and the ACL header, before each fragment's data.
    static let bytesBeforeFragment = 1 + ACLHeader.size
    /// How long a raised mark may hold the reader: one tick of the kernel's clock, to which it
    /// rounds the 1 ms up.
    static let bound = timeval(tv_sec: 0, tv_usec: 1000)

    private let fd: Int32
    private let readBufferSize: Int
    /// The most data one ACL packet may carry (the deframer's limit).
    private let largestFragment: Int
    package private(set) var mark = 1
    package private(set) var bounded = false
    /// Set when the socket refused an option: the reader then reads as before.
    package private(set) var failed = false

    package init(fd: Int32, readBufferSize: Int, largestFragment: Int) {
        self.fd = fd
        self.readBufferSize = readBufferSize
        self.largestFragment = max(largestFragment, 1)
    }

    /// The stream bytes at least still to come when `owed` ACL data bytes are owed and the
    /// deframer holds `held` bytes of a packet begun: the data, a packet type and ACL header for
    /// each packet it needs at `largestFragment` bytes a packet, less what is held. At least 1.
    package static func bytes(forOwedData owed: Int, held: Int, largestFragment: Int) -> Int {
        guard owed > 0 else { return 1 }
        let packets = (owed + largestFragment - 1) / largestFragment
        return max(owed + bytesBeforeFragment * packets - held, 1)
    }

    /// After a read's packets: waits at the next read for the rest of `owed` ACL data bytes, of
    /// which the deframer holds the first `held` stream bytes (owed 0: for any byte).
    package mutating func follow(owedData owed: Int, held: Int) {
        guard !failed else { return }
        let wanted = min(Self.bytes(forOwedData: owed, held: held, largestFragment: largestFragment), readBufferSize)
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
    package mutating func readTimedOut() {
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
