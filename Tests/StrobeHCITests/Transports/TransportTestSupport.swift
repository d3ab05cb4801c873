import StrobeBase
import Synchronization
import Testing
import StrobeHCI

#if canImport(Glibc)
import Glibc
#endif

/// Groups every transport suite, so that `swift test --filter Transports` selects them.
@Suite("Transports") enum Transports {}

/// One packet as the deframer or a transport delivered it: type and bytes after the type byte.
struct Packet: Equatable, CustomStringConvertible {
    var type: HCIPacketType
    var body: [UInt8]

    /// The packet as it travels: H4 type byte first.
    var h4: [UInt8] { [type.rawValue] + body }

    var description: String { "\(type)(\(body.count) bytes)" }

    static func command(opcode: UInt16, parameters: [UInt8]) -> Packet {
        Packet(type: .command, body: [UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(parameters.count)] + parameters)
    }

    static func event(code: UInt8, parameters: [UInt8]) -> Packet {
        Packet(type: .event, body: [code, UInt8(parameters.count)] + parameters)
    }

    static func acl(handle: UInt16, data: [UInt8]) -> Packet {
        let length = UInt16(data.count)
        return Packet(type: .acl, body: [UInt8(handle & 0xFF), UInt8(handle >> 8), UInt8(length & 0xFF), UInt8(length >> 8)] + data)
    }

    static func sco(handle: UInt16, data: [UInt8]) -> Packet {
        Packet(type: .sco, body: [UInt8(handle & 0xFF), UInt8(handle >> 8), UInt8(data.count)] + data)
    }

    /// `flagBits` go in the two RFU bits above the 14-bit length, which the deframer must mask off.
    static func iso(handle: UInt16, data: [UInt8], flagBits: UInt16 = 0) -> Packet {
        let field = UInt16(data.count) | flagBits << 14
        return Packet(type: .iso, body: [UInt8(handle & 0xFF), UInt8(handle >> 8), UInt8(field & 0xFF), UInt8(field >> 8)] + data)
    }
}

/// A deterministic generator (SplitMix64) so that random split points are the same every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A payload whose bytes depend on a seed, so that a misplaced byte shows.
func pattern(_ count: Int, seed: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ 1) }
}

/// Records what a transport delivers and lets a test await it without sleeping.
final class RecordingSink: HCIPacketSink {
    private struct State {
        var packets: [Packet] = []
        var times: [HostTime] = []
        var closes: [TransportError?] = []
        /// The packet count at each batch end.
        var batchEnds: [Int] = []
        var batchWaiters: [(count: Int, continuation: CheckedContinuation<[Int], Never>)] = []
        var packetWaiters: [(count: Int, continuation: CheckedContinuation<[Packet], Never>)] = []
        var closeWaiters: [CheckedContinuation<TransportError?, Never>] = []
    }

    private let state = Lock(State())
    /// Called on the reader thread after each packet is recorded (to close from inside the sink).
    private let onPacket: (@Sendable (Int) -> Void)?
    /// Called on the reader thread after the close is recorded.
    private let onClose: (@Sendable () -> Void)?

    init(onPacket: (@Sendable (Int) -> Void)? = nil, onClose: (@Sendable () -> Void)? = nil) {
        self.onPacket = onPacket
        self.onClose = onClose
    }

    func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
        let packet = Packet(type: type, body: Array(payload))
        let (count, ready) = state.withLock { s -> (Int, [(CheckedContinuation<[Packet], Never>, [Packet])]) in
            s.packets.append(packet)
            s.times.append(time)
            var ready: [(CheckedContinuation<[Packet], Never>, [Packet])] = []
            s.packetWaiters.removeAll { waiter in
                guard s.packets.count >= waiter.count else { return false }
                ready.append((waiter.continuation, s.packets))
                return true
            }
            return (s.packets.count, ready)
        }
        for (continuation, packets) in ready { continuation.resume(returning: packets) }
        onPacket?(count)
    }

    func transportDidFinishBatch() {
        let ready = state.withLock { s -> [(CheckedContinuation<[Int], Never>, [Int])] in
            s.batchEnds.append(s.packets.count)
            var ready: [(CheckedContinuation<[Int], Never>, [Int])] = []
            s.batchWaiters.removeAll { waiter in
                guard s.batchEnds.count >= waiter.count else { return false }
                ready.append((waiter.continuation, s.batchEnds))
                return true
            }
            return ready
        }
        for (continuation, ends) in ready { continuation.resume(returning: ends) }
    }

    /// The packet count at each of the first `count` batch ends, once they have all come.
    func batchEnds(count: Int) async -> [Int] {
        await withCheckedContinuation { continuation in
            let ends = state.withLock { s -> [Int]? in
                if s.batchEnds.count >= count { return s.batchEnds }
                s.batchWaiters.append((count, continuation))
                return nil
            }
            if let ends { continuation.resume(returning: ends) }
        }
    }

    func transportDidClose(_ error: TransportError?) {
        let waiters = state.withLock { s in
            s.closes.append(error)
            defer { s.closeWaiters = [] }
            return s.closeWaiters
        }
        for waiter in waiters { waiter.resume(returning: error) }
        onClose?()
    }

    var packets: [Packet] { state.withLock { $0.packets } }
    var times: [HostTime] { state.withLock { $0.times } }
    var closes: [TransportError?] { state.withLock { $0.closes } }

    /// The first `count` packets received, once they have all arrived.
    func packets(count: Int) async -> [Packet] {
        await withCheckedContinuation { continuation in
            let packets = state.withLock { s -> [Packet]? in
                if s.packets.count >= count { return s.packets }
                s.packetWaiters.append((count, continuation))
                return nil
            }
            if let packets { continuation.resume(returning: packets) }
        }
    }

    /// The reason passed to the first `transportDidClose`, once it has come.
    func closeReason() async -> TransportError? {
        await withCheckedContinuation { continuation in
            let closed = state.withLock { s -> TransportError?? in
                if let first = s.closes.first { return .some(first) }
                s.closeWaiters.append(continuation)
                return .none
            }
            if case .some(let reason) = closed { continuation.resume(returning: reason) }
        }
    }
}

/// Blocking helpers for the far end of a link.
enum Peer {
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                Issue.record("peer write failed: errno \(errno)")
                return
            }
            offset += n
        }
    }

    /// Reads exactly `count` bytes (a stream may split them anywhere).
    static func readExactly(_ fd: Int32, _ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let n = bytes[offset...].withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                Issue.record("peer read ended after \(offset) of \(count) bytes (errno \(errno))")
                return Array(bytes[..<offset])
            }
            offset += n
        }
        return bytes
    }

    /// One record from a seqpacket socket: exactly what one write on the other end carried.
    static func readRecord(_ fd: Int32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 70_000)
        while true {
            let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else {
                Issue.record("peer recv failed: errno \(errno)")
                return []
            }
            return Array(bytes[..<n])
        }
    }

    /// Parses H4 packets out of bytes that a test knows hold whole packets.
    static func split(_ bytes: [UInt8]) throws -> [Packet] {
        var deframer = H4Deframer()
        var packets: [Packet] = []
        try bytes.withUnsafeBytes { chunk in
            try deframer.feed(chunk) { type, payload in packets.append(Packet(type: type, body: Array(payload))) }
        }
        try deframer.finish()
        return packets
    }

    static func socketPair(_ type: Int32) -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        let rc = socketpair(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
        #expect(rc == 0, "socketpair: errno \(errno)")
        return (fds[0], fds[1])
    }
}

/// A mixed set of packets of every type, sizes from empty to the default ACL limit.
func sampleTraffic() -> [Packet] {
    [
        .command(opcode: 0x0C03, parameters: []),  // HCI_Reset
        .event(code: 0x0E, parameters: [0x01, 0x03, 0x0C, 0x00]),  // Command Complete
        .acl(handle: 0x0040, data: pattern(27, seed: 1)),
        .sco(handle: 0x0001, data: pattern(60, seed: 2)),
        .iso(handle: 0x0060, data: pattern(120, seed: 3), flagBits: 0b11),
        .event(code: 0x3E, parameters: pattern(255, seed: 4)),
        .command(opcode: 0x2006, parameters: pattern(15, seed: 5)),
        .acl(handle: 0x2041, data: []),
        .acl(handle: 0x0041, data: pattern(4096, seed: 6)),
        .sco(handle: 0x0002, data: []),
        .iso(handle: 0x0061, data: []),
        .event(code: 0x13, parameters: [0x01, 0x40, 0x00, 0x01, 0x00]),
        .command(opcode: 0xFC01, parameters: pattern(255, seed: 7)),
        .iso(handle: 0x0062, data: pattern(4096, seed: 8)),
    ]
}
