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
    private let receiver: Mutex<Receiver>
    private let sending = L2CAPSendClaim()

    private struct Job: Sendable {
        var pdu: [UInt8]
        var continuation: CheckedContinuation<Void, any Error>?
    }

    /// Reader-thread state: the reassembler and the counters it feeds.
    private struct Receiver: @unchecked Sendable {
        // Only the transport's reader thread uses it, and always under this mutex.
        var reassembler: L2CAPReassembler
        var routes = Routes()
        var counters = L2CAPLinkCounters()
        var lastError: L2CAPError?
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
        receiver.withLock { body(&$0.routes) }
    }

    var counters: L2CAPLinkCounters { receiver.withLock { $0.counters } }
    var lastError: L2CAPError? { receiver.withLock { $0.lastError } }

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
        // One lock per packet: reassembly, routing and counters are the reader thread's.
        receiver.withLock { r in
            let routes = r.routes
            r.reassembler.receive(packet) { event in
                switch event {
                case .pdu(let pdu):
                    r.counters.pdus += 1
                    route(pdu, routes: routes, counters: &r.counters, at: time)
                case .error(let error):
                    r.counters.errors += 1
                    r.lastError = error
                }
            }
        }
    }

    private func route(_ pdu: L2CAPPDU, routes: Routes, counters: inout L2CAPLinkCounters, at time: HostTime) {
        switch pdu.channel {
        case .att:
            routes.att?(pdu.payload, time)
        case .leSignaling:
            do throws(L2CAPSignalingError) {
                routes.signaling?(try LESignalingPacket(parsing: pdu.payload))
            } catch {
                counters.malformedSignaling += 1
            }
        case .smp:
            if let answer = SMPPairingNotSupported.answer(to: pdu.payload) {
                counters.pairingRefused += 1
                post(answer, on: .smp)
            }
        default:
            counters.unknownChannel += 1
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
