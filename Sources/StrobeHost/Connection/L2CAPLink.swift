import Logging
import StrobeHCI
import Synchronization

/// The receiving side of L2CAP on one LE-U link, as the controller hands it the link's ACL data
/// on the transport's reader thread: fragments reassembled in place and routed by channel, ATT
/// (CID 4) to the link's bearer, LE signalling (CID 5) answered here, SMP (CID 6) to the
/// link's Security Manager.
///
/// The reassembler belongs to the reader thread: the receive path takes no lock and allocates
/// nothing. What goes out uses the link's `L2CAPSender`.
final class L2CAPLink: HCIACLHandler, @unchecked Sendable {
    let handle: ConnectionHandle
    let role: LERole
    let bearer: ATTBearer
    let sender: L2CAPSender
    let security: LinkSecurity
    private let controller: HCIController
    private let parameterPolicy: ConnectionParameterPolicy
    /// Used only on the reader thread (the one that calls `controllerDidReceiveACL`), through
    /// a pointer: no exclusivity check and no reference count per packet.
    private let reassembly: UnsafeMutablePointer<L2CAPReassembly>
    private let reassemblyBuffer: UnsafeMutableRawBufferPointer
    private let counts = Counts()
    /// Written on the error path only.
    private let lastErrorSeen = Mutex<L2CAPError?>(nil)
    private let signaling = Mutex(SignalingCounts())

    /// `L2CAPLinkCounters`, counted without a lock.
    private struct Counts: ~Copyable, Sendable {
        let pdus = Atomic<Int>(0)
        let errors = Atomic<Int>(0)
        let malformedSignaling = Atomic<Int>(0)
        let signalingRejected = Atomic<Int>(0)
        let smp = Atomic<Int>(0)
        let unknownChannel = Atomic<Int>(0)
    }

    struct SignalingCounts {
        var parameterUpdateRequests = 0
        var parameterUpdatesAccepted = 0
        /// This host's own Connection Parameter Update Request, waiting for its response.
        var pendingUpdate: (identifier: UInt8, waiter: Waiter<Bool>)?
        var nextIdentifier: UInt8 = 1
    }

    /// How long a signalling request waits for its response (the spec's RTX: 1 to 60 s).
    static let responseTimeout = Duration.seconds(30)

    init(controller: HCIController, handle: ConnectionHandle, role: LERole, sender: L2CAPSender, bearer: ATTBearer,
         security: LinkSecurity, parameterPolicy: ConnectionParameterPolicy = .lowLatency) {
        self.controller = controller
        self.parameterPolicy = parameterPolicy
        self.security = security
        self.handle = handle
        self.role = role
        self.sender = sender
        self.bearer = bearer
        reassemblyBuffer = .allocate(byteCount: L2CAPBasicHeader.length + sender.maximumPayload, alignment: 8)
        reassembly = .allocate(capacity: 1)
        reassembly.initialize(to: L2CAPReassembly(
            connectionHandle: handle, maximumPayloadLength: sender.maximumPayload, buffer: reassemblyBuffer))
    }

    deinit {
        reassembly.deinitialize(count: 1)
        reassembly.deallocate()
        reassemblyBuffer.deallocate()
    }

    var counters: L2CAPLinkCounters {
        var counters = L2CAPLinkCounters()
        counters.pdus = counts.pdus.load(ordering: .relaxed)
        counters.errors = counts.errors.load(ordering: .relaxed)
        counters.malformedSignaling = counts.malformedSignaling.load(ordering: .relaxed)
        counters.signalingRejected = counts.signalingRejected.load(ordering: .relaxed)
        counters.smp = counts.smp.load(ordering: .relaxed)
        counters.unknownChannel = counts.unknownChannel.load(ordering: .relaxed)
        return counters
    }

    var lastError: L2CAPError? { lastErrorSeen.withLock { $0 } }

    /// Connection Parameter Update Requests the peer sent, and how many were accepted.
    var parameterUpdateRequests: (received: Int, accepted: Int) {
        signaling.withLock { ($0.parameterUpdateRequests, $0.parameterUpdatesAccepted) }
    }

    // MARK: Receiving (reader thread)

    func controllerDidReceiveACL(_ header: ACLHeader, payload: UnsafeRawBufferPointer, at time: HostTime) {
        let outcome = reassembly.pointee.receive(ACLDataPacket(header: header, data: payload))
        if outcome.errorCount > 0 { reassemblyFailed(outcome) }
        if let pdu = outcome.pdu {
            counts.pdus.incrementBySoleWriter()
            route(pdu, at: time)
        }
    }

    func controllerDidFinishBatch() {
        bearer.finishBatch()
    }

    @inline(never)
    private func reassemblyFailed(_ outcome: L2CAPReassemblyOutcome) {
        for error in reassembly.pointee.errors(of: outcome) {
            counts.errors.incrementBySoleWriter()
            lastErrorSeen.withLock { $0 = error }
            controller.logger.warning("L2CAP data dropped", metadata: ["handle": "\(handle)", "error": "\(error)"])
        }
    }

    @inline(__always)
    private func route(_ pdu: L2CAPPDU, at time: HostTime) {
        switch pdu.channel {
        case .att:
            bearer.receiveInBatch(pdu.payload, at: time)
        case .leSignaling:
            receiveSignaling(pdu.payload)
        case .smp:
            // Rare and small: copied out of the read buffer for the Security Manager.
            counts.smp.incrementBySoleWriter()
            security.receive(Array(pdu.payload))
        default:
            counts.unknownChannel.incrementBySoleWriter()
            controller.logger.debug("L2CAP PDU on an unknown channel dropped", metadata: ["handle": "\(handle)", "channel": "\(pdu.channel)"])
        }
    }

    // MARK: LE signalling

    private func receiveSignaling(_ payload: UnsafeRawBufferPointer) {
        let packet: LESignalingPacket
        do throws(L2CAPSignalingError) {
            packet = try LESignalingPacket(parsing: payload)
        } catch {
            counts.malformedSignaling.incrementBySoleWriter()
            controller.logger.warning("malformed LE signalling PDU dropped", metadata: ["handle": "\(handle)", "error": "\(error)"])
            return
        }
        switch LESignalingCode(rawValue: packet.code) {
        case .connectionParameterUpdateRequest where role == .central:
            let request: ConnectionParameterUpdateRequest
            do throws(L2CAPSignalingError) {
                request = try ConnectionParameterUpdateRequest(data: packet.data)
            } catch {
                counts.malformedSignaling.incrementBySoleWriter()
                reject(packet)
                return
            }
            // The same policy as the link layer's requests; accepted, the link takes the asked-for
            // parameters narrowed to it.
            let decision = parameterPolicy.decide(request.parameters)
            let accepted: LEConnectionParameters? = if case .accept(let parameters) = decision { parameters } else { nil }
            signaling.withLock {
                $0.parameterUpdateRequests += 1
                if accepted != nil { $0.parameterUpdatesAccepted += 1 }
            }
            sender.post(ConnectionParameterUpdateRequest.response(identifier: packet.identifier, accepted: accepted != nil).encoded,
                        on: .leSignaling)
            if let accepted {
                Task { [controller, handle] in
                    do {
                        try await controller.send(HCILEConnectionUpdate(connectionHandle: handle, connection: accepted))
                    } catch {
                        controller.logger.warning("LE Connection Update for the peer's request failed",
                                                  metadata: ["handle": "\(handle)", "error": "\(error)"])
                    }
                }
            }
        case .connectionParameterUpdateResponse:
            // Result 0x0000 accepted, 0x0001 rejected; a response to no request of ours is dropped.
            let waiter = signaling.withLock { s -> Waiter<Bool>? in
                guard let pending = s.pendingUpdate, pending.identifier == packet.identifier else { return nil }
                s.pendingUpdate = nil
                return pending.waiter
            }
            guard packet.data.count == 2 else {
                counts.malformedSignaling.incrementBySoleWriter()
                waiter?.fail(L2CAPSignalingError.lengthMismatch(code: packet.code, announced: 2, actual: packet.data.count))
                return
            }
            waiter?.resolve(.success(packet.data[0] == 0 && packet.data[1] == 0))
        case .commandReject, .disconnectionResponse,
             .leCreditBasedConnectionResponse, .flowControlCredit:
            // Answers and notices: nothing to answer back.
            break
        default:
            // Unknown, or a request this host does not serve: Command Reject (not understood).
            reject(packet)
        }
    }

    /// Peripheral: asks the central for `parameters` through L2CAP signalling (Vol 3, Part A,
    /// 4.20), for a central whose link layer lacks the Connection Parameters Request procedure;
    /// returns whether it accepted (the central then updates the link itself). Waits up to
    /// `responseTimeout`.
    func requestParameterUpdate(_ parameters: LEConnectionParameters, clock: any Clock<Duration>) async throws -> Bool {
        let waiter = Waiter<Bool>()
        let identifier = signaling.withLock { s -> UInt8 in
            s.pendingUpdate?.waiter.fail(CancellationError())
            let identifier = s.nextIdentifier
            s.nextIdentifier = identifier == 0xFF ? 1 : identifier + 1
            s.pendingUpdate = (identifier, waiter)
            return identifier
        }
        let request = ConnectionParameterUpdateRequest(intervalMin: parameters.intervalMin, intervalMax: parameters.intervalMax,
                                                       latency: parameters.maxLatency, timeout: parameters.supervisionTimeout)
        try await sender.send(request.request(identifier: identifier).encoded, on: .leSignaling)
        let withdraw: @Sendable () -> Void = { [weak self] in
            self?.signaling.withLock { if $0.pendingUpdate?.waiter === waiter { $0.pendingUpdate = nil } }
        }
        let deadline = Task { [peer = security.peer] in
            guard (try? await clock.sleep(for: Self.responseTimeout)) != nil else { return }
            if waiter.fail(ConnectionUpdateError.timeout(address: peer, after: Self.responseTimeout)) { withdraw() }
        }
        defer { deadline.cancel() }
        return try await waiter.wait(onCancel: withdraw)
    }

    /// The link is down: a request of ours waiting for its response fails.
    func closed() {
        let pending = signaling.withLock { s in
            defer { s.pendingUpdate = nil }
            return s.pendingUpdate
        }
        pending?.waiter.fail(HCIError.connectionClosed(handle: handle))
    }

    private func reject(_ packet: LESignalingPacket) {
        counts.signalingRejected.incrementBySoleWriter()
        sender.post(LESignalingPacket.commandNotUnderstood(identifier: packet.identifier).encoded, on: .leSignaling)
    }
}

/// What one link's L2CAP layer has seen.
public struct L2CAPLinkCounters: Sendable, Hashable {
    public var pdus = 0
    /// Reassembly errors (bad fragments, hostile lengths); see `L2CAPError`.
    public var errors = 0
    public var malformedSignaling = 0
    /// Signalling commands answered with Command Reject.
    public var signalingRejected = 0
    /// SMP PDUs handed to the Security Manager.
    public var smp = 0
    public var unknownChannel = 0
    public init() {}
}
