import StrobeHCI
import Synchronization

/// L2CAP on one LE-U link: outgoing PDUs cut to the controller's LE ACL length and sent one
/// after the other (fragments of two PDUs never interleave), incoming fragments reassembled and
/// routed by channel: ATT (4) to the bearer, LE signalling (5) and SMP (6) answered here.
final class L2CAPLink: ATTChannel, Sendable {
    let handle: UInt16
    let maximumPayload: Int
    private let controller: HCIController
    private let fragmentLength: Int
    private let jobs: AsyncStream<Job>.Continuation
    /// The reassembler: only the transport's reader thread takes this lock.
    private let receiver: Mutex<Receiver>
    /// Where reassembled PDUs go, read on the receive path with no lock.
    private let routes = PublishedReference<PublishedBox<Routes>>(PublishedBox(Routes()))
    /// Serialises route changes (the receive path never takes it).
    private let routeChanges = Mutex(())
    private let counts = Counts()
    /// Written on the error path only.
    private let lastErrorSeen = Mutex<L2CAPError?>(nil)
    private let sending = L2CAPSendClaim()

    private struct Job: Sendable {
        var pdu: [UInt8]
        var continuation: CheckedContinuation<Void, any Error>?
    }

    /// Reader-thread state.
    private struct Receiver: @unchecked Sendable {
        // Only the transport's reader thread uses it, and always under this mutex.
        var reassembler: L2CAPReassembler
    }

    /// `L2CAPLinkCounters`, counted without a lock.
    private struct Counts: ~Copyable, Sendable {
        let pdus = Atomic<Int>(0)
        let errors = Atomic<Int>(0)
        let malformedSignaling = Atomic<Int>(0)
        let pairingRefused = Atomic<Int>(0)
        let unknownChannel = Atomic<Int>(0)
    }

    struct Routes: Sendable {
        var att: (@Sendable (UnsafeRawBufferPointer, HostTime) -> Void)?
        var signaling: (@Sendable (LESignalingPacket) -> Void)?
    }

    /// `maximumSDU` bounds a reassembled PDU: the largest ATT MTU this host uses (517) plus room.
    init(controller: HCIController, handle: UInt16, fragmentLength: Int, maximumSDU: Int = 1024) {
        self.controller = controller
        self.handle = handle
        self.fragmentLength = fragmentLength
        maximumPayload = maximumSDU
        receiver = Mutex(Receiver(reassembler: L2CAPReassembler(connectionHandle: handle, maximumPayloadLength: maximumSDU)))
        let (stream, continuation) = AsyncStream.makeStream(of: Job.self)
        jobs = continuation
        // One sender per link, so that each PDU's fragments go out back to back.
        Task { [controller, handle, fragmentLength, sending] in
            for await job in stream {
                do {
                    try await Self.sendFragments(
                        job.pdu, controller: controller, handle: handle, fragmentLength: fragmentLength, sending: sending)
                    job.continuation?.resume()
                } catch {
                    job.continuation?.resume(throwing: error)
                }
            }
        }
    }

    func setRoutes(_ body: (inout Routes) -> Void) {
        routeChanges.withLock { _ in
            var changed = routes.value?.value ?? Routes()
            body(&changed)
            routes.replace(with: PublishedBox(changed))
        }
    }

    var counters: L2CAPLinkCounters {
        var counters = L2CAPLinkCounters()
        counters.pdus = counts.pdus.load(ordering: .relaxed)
        counters.errors = counts.errors.load(ordering: .relaxed)
        counters.malformedSignaling = counts.malformedSignaling.load(ordering: .relaxed)
        counters.pairingRefused = counts.pairingRefused.load(ordering: .relaxed)
        counters.unknownChannel = counts.unknownChannel.load(ordering: .relaxed)
        return counters
    }

    var lastError: L2CAPError? { lastErrorSeen.withLock { $0 } }

    // MARK: Sending

    /// ATT PDUs: returns once every fragment is with the controller (waiting for ACL credits,
    /// never dropping), or throws when the link is gone.
    func send(_ pdu: [UInt8]) async throws {
        try await send(pdu, on: .att)
    }

    func enqueue(_ pdu: [UInt8]) -> Bool {
        post(pdu, on: .att)
        return true
    }

    func send(_ payload: [UInt8], on channel: L2CAPChannelID) async throws {
        let frame = Self.frame(payload, on: channel)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            if case .terminated = jobs.yield(Job(pdu: frame, continuation: continuation)) {
                continuation.resume(throwing: HCIError.connectionClosed(handle: handle))
            }
        }
    }

    /// Queues a PDU behind everything queued before it, without waiting (answers made on the
    /// reader thread). Dropped when the link is gone.
    func post(_ payload: [UInt8], on channel: L2CAPChannelID) {
        jobs.yield(Job(pdu: Self.frame(payload, on: channel), continuation: nil))
    }

    /// The basic L2CAP header in front of the payload.
    private static func frame(_ payload: [UInt8], on channel: L2CAPChannelID) -> [UInt8] {
        var frame = [UInt8]()
        frame.reserveCapacity(L2CAPBasicHeader.length + payload.count)
        frame.append(UInt8(truncatingIfNeeded: payload.count))
        frame.append(UInt8(truncatingIfNeeded: payload.count >> 8))
        frame.append(UInt8(truncatingIfNeeded: channel.rawValue))
        frame.append(UInt8(truncatingIfNeeded: channel.rawValue >> 8))
        frame.append(contentsOf: payload)
        return frame
    }

    private static func sendFragments(
        _ frame: [UInt8], controller: HCIController, handle: UInt16, fragmentLength: Int, sending: L2CAPSendClaim
    ) async throws {
        // An armed packet must not land between two fragments of this PDU.
        if frame.count > fragmentLength {
            while !sending.tryClaim() { await Task.yield() }
        }
        defer { if frame.count > fragmentLength { sending.release() } }
        var offset = 0
        while offset < frame.count {
            let end = min(offset + fragmentLength, frame.count)
            try await controller.sendACL(
                handle: handle, boundary: offset == 0 ? .firstNonFlushable : .continuing, payload: Array(frame[offset..<end]))
            offset = end
        }
    }

    func arm(_ pdu: [UInt8]) -> (any ATTArmedPacket)? {
        L2CAPArmedPacket(pdu, on: .att, controller: controller, handle: handle, fragmentLength: fragmentLength, sending: sending)
    }

    /// The link is gone: queued PDUs fail, new ones are refused.
    func close() {
        jobs.finish()
        setRoutes { $0 = Routes() }
    }

    // MARK: Receiving (reader thread)

    func receive(boundary: ACLPacketBoundary, payload: UnsafeRawBufferPointer, at time: HostTime) {
        let packet = ACLDataPacket(
            header: ACLDataHeader(connectionHandle: handle, packetBoundary: boundary, dataTotalLength: UInt16(truncatingIfNeeded: payload.count)),
            data: payload)
        // The reassembler's lock is the reader thread's alone; routes and counts take none.
        receiver.withLock { r in
            r.reassembler.receive(packet) { event in
                switch event {
                case .pdu(let pdu):
                    counts.pdus.add(1, ordering: .relaxed)
                    routes.read { route(pdu, routes: $0?.value, at: time) }
                case .error(let error):
                    counts.errors.add(1, ordering: .relaxed)
                    lastErrorSeen.withLock { $0 = error }
                }
            }
        }
    }

    private func route(_ pdu: L2CAPPDU, routes: Routes?, at time: HostTime) {
        switch pdu.channel {
        case .att:
            routes?.att?(pdu.payload, time)
        case .leSignaling:
            do throws(L2CAPSignalingError) {
                routes?.signaling?(try LESignalingPacket(parsing: pdu.payload))
            } catch {
                counts.malformedSignaling.add(1, ordering: .relaxed)
            }
        case .smp:
            if let answer = SMPPairingNotSupported.answer(to: pdu.payload) {
                counts.pairingRefused.add(1, ordering: .relaxed)
                post(answer, on: .smp)
            }
        default:
            counts.unknownChannel.add(1, ordering: .relaxed)
        }
    }
}

/// What one link's L2CAP layer has seen.
public struct L2CAPLinkCounters: Sendable, Hashable {
    public var pdus = 0
    /// Reassembly errors (bad fragments, hostile lengths); see `L2CAPError`.
    public var errors = 0
    public var malformedSignaling = 0
    public var signalingRejected = 0
    public var pairingRefused = 0
    public var unknownChannel = 0
    public init() {}
}
