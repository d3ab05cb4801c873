import Logging
import StrobeHCI
import StrobeSecurity
import StrobeBase
import Synchronization

/// The receiving side of L2CAP on one LE-U link, as the controller hands it the link's ACL data
/// on the transport's reader thread: fragments reassembled in place and routed by channel, ATT
/// (CID 4) to the link's bearer, LE signalling (CID 5) answered here, SMP (CID 6) to the
/// link's Security Manager, dynamic CIDs to the link's credit-based channels (`L2CAPChannelTable`).
///
/// The reassembler belongs to the reader thread: the receive path takes no lock and allocates
/// nothing. What goes out uses the link's `L2CAPSender`.
package final class L2CAPLink: HCIACLHandler, @unchecked Sendable {
    // The fields every packet reads come first, on the object's first cache line.
    /// Used only on the reader thread (the one that calls `controllerDidReceiveACL`), through
    /// a pointer: no exclusivity check and no reference count per packet.
    private let reassembly: UnsafeMutablePointer<L2CAPReassembly>
    let bearer: ATTBearer
    private let counts = Counts()
    let handle: ConnectionHandle
    let role: LERole
    let sender: L2CAPSender
    let security: LinkSecurity
    private let controller: HCIController
    private let reassemblyBuffer: UnsafeMutableRawBufferPointer
    /// Written on the error path only.
    private let lastErrorSeen = Lock<L2CAPError?>(nil)
    private let signaling: Lock<SignalingCounts>
    /// The one timer behind the link's signalling deadlines (`LinkDeadline`).
    private let timer: DeadlineTimer

    /// What the link waits for with a deadline.
    enum LinkDeadline: Hashable, Sendable {
        /// The response to a credit-based channel request of ours, by identifier.
        case response(UInt8)
        /// The response to our Connection Parameter Update Request.
        case parameterUpdate
        /// A channel `send` still waiting for its SDU to go out.
        case send(ObjectIdentifier)
    }

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
        /// Connection parameter update, both ways, and Command Reject.
        var answers: LESignalingAnswers<Waiter<Bool>>
        /// The credit-based channels, and what waits on them.
        var channels = L2CAPChannelTable()
        var listeners: [UInt16: L2CAPChannelTable.Listener] = [:]
        var acceptors: [UInt16: (generation: Int, continuation: AsyncStream<L2CAPChannel>.Continuation)] = [:]
        var generation = 0
        var opening: [UInt64: Waiter<[L2CAPChannel]>] = [:]
        var nextToken: UInt64 = 1
        var objects: [L2CAPChannelID: L2CAPChannel] = [:]
        /// Each channel's `send` callers, in the order their SDUs go out.
        var sendWaiters: [L2CAPChannelID: [Waiter<Void>]] = [:]
        var deadlines = DeadlineSet<LinkDeadline>()
        /// The `send` callers with a deadline, and how long they were given.
        var timedSends: [ObjectIdentifier: (waiter: Waiter<Void>, timeout: Duration)] = [:]
        var linkClosed = false

        init(answers: LESignalingAnswers<Waiter<Bool>>) {
            self.answers = answers
        }
    }

    /// What a channel action leaves to do once the signalling lock is released.
    private enum Followup: Sendable {
        case opened(Waiter<[L2CAPChannel]>, [L2CAPChannel])
        case openFailed(Waiter<[L2CAPChannel]>, L2CAPChannelError)
        case accepted(AsyncStream<L2CAPChannel>.Continuation?, L2CAPChannel)
        case deliver(L2CAPChannel, [UInt8], HostTime)
        case ended(L2CAPChannel?, [Waiter<Void>], L2CAPChannelError?)
    }

    /// How long a signalling request waits for its response (the spec's RTX: 1 to 60 s).
    package static let responseTimeout = Duration.seconds(30)

    init(controller: HCIController, handle: ConnectionHandle, role: LERole, sender: L2CAPSender, bearer: ATTBearer,
         security: LinkSecurity, clock: any Clock<Duration>, parameterPolicy: ConnectionParameterPolicy = .lowLatency) {
        self.controller = controller
        signaling = Lock(SignalingCounts(answers: LESignalingAnswers(role: role, policy: parameterPolicy)))
        self.security = security
        self.handle = handle
        self.role = role
        self.sender = sender
        self.bearer = bearer
        reassemblyBuffer = .allocate(byteCount: L2CAPBasicHeader.length + sender.maximumPayload, alignment: 8)
        // A cache line of its own: the fields each fragment touches share its first line.
        reassembly = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<L2CAPReassembly>.size, alignment: 64)
            .bindMemory(to: L2CAPReassembly.self, capacity: 1)
        reassembly.initialize(to: L2CAPReassembly(
            connectionHandle: handle, maximumPayloadLength: sender.maximumPayload, buffer: reassemblyBuffer))
        timer = DeadlineTimer(clock: clock, loop: controller.loop)
        timer.onFire { [weak self] now in self?.deadlinesPassed(now) }
    }

    deinit {
        timer.stop()
        UnsafeMutableRawPointer(reassembly.deinitialize(count: 1)).deallocate()
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
        signaling.withLock { ($0.answers.requestsReceived, $0.answers.requestsAccepted) }
    }

    // MARK: Receiving (reader thread)

    package var receiveContext: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(reassembly) }

    @inline(__always)
    package func controllerDidReceiveACL(_ header: ACLHeader, payload: UnsafeRawBufferPointer, at time: HostTime,
                                 context: UnsafeMutableRawPointer?) {
        // The route's copy of `reassembly`, fetched with the route instead of through self.
        assert(context == nil || context == UnsafeMutableRawPointer(self.reassembly), "a route handed another link's state")
        let state = context?.assumingMemoryBound(to: L2CAPReassembly.self) ?? self.reassembly
        let outcome = state.pointee.receive(ACLDataPacket(header: header, data: payload))
        if outcome.errorCount > 0 { reassemblyFailed(outcome) }
        if let pdu = outcome.pdu {
            counts.pdus.incrementBySoleWriter()
            route(pdu, at: time)
        }
    }

    package func controllerDidFinishBatch() {
        bearer.finishBatch()
    }

    package var bytesToCompletePDU: Int { reassembly.pointee.bytesOwed }

    @inline(never)
    private func reassemblyFailed(_ outcome: L2CAPReassemblyOutcome) {
        for error in reassembly.pointee.errors(of: outcome) {
            counts.errors.incrementBySoleWriter()
            lastErrorSeen.withLock { $0 = error }
            controller.logger.warning("L2CAP data dropped", metadata: ["handle": "\(handle)", "error": "\(error)"])
            // A channel missing a K-frame would join the wrong bytes into an SDU: it ends instead.
            if case .pduTooLong(_, let channel?, let length, _) = error, channel.isDynamicLE {
                run(signaling.withLock { s in process(s.channels.received(oversizedKFrameOf: length, on: channel), &s) })
            }
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
            if pdu.channel.isDynamicLE, receiveKFrame(pdu.payload, on: pdu.channel, at: time) { return }
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
        if receiveChannelSignaling(packet) { return }
        answer(stepAnswers { $0.answers.received(packet) })
    }

    /// Peripheral: asks the central for `parameters` through L2CAP signalling (Vol 3, Part A,
    /// 4.20), for a central whose link layer lacks the Connection Parameters Request procedure;
    /// returns whether it accepted (the central then updates the link itself). Waits up to
    /// `responseTimeout`.
    func requestParameterUpdate(_ parameters: LEConnectionParameters) async throws -> Bool {
        let waiter = Waiter<Bool>()
        let actions = stepAnswers { s in s.answers.request(parameters, identifier: s.channels.allocateIdentifier(), for: waiter) }
        answer(actions)
        let withdraw: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            answer(stepAnswers { $0.answers.withdraw(waiter) })
        }
        for case .sendRequest(let request) in actions {
            do {
                try await sender.send(request.encoded, on: .leSignaling)
            } catch {
                withdraw()
                throw error
            }
            answer(stepAnswers { $0.answers.requestSent(for: waiter) })
        }
        return try await waiter.wait(onCancel: withdraw)
    }

    private typealias AnswerAction = LESignalingAnswers<Waiter<Bool>>.Action

    /// Steps `LESignalingAnswers` under the signalling lock, keeping there what lives beside it
    /// (the identifier its request holds, the request's deadline); returns the actions to carry out.
    private func stepAnswers(_ step: (inout SignalingCounts) -> [AnswerAction]) -> [AnswerAction] {
        signaling.withLock { s in
            let actions = step(&s)
            keepBeside(actions, &s)
            return actions
        }
    }

    private func keepBeside(_ actions: [AnswerAction], _ s: inout SignalingCounts) {
        s.channels.reservedIdentifier = s.answers.pending?.identifier
        for action in actions {
            switch action {
            case .awaitResponse: s.deadlines.set(.parameterUpdate, at: timer.now + Self.responseTimeout)
            case .responseSettled: s.deadlines.clear(.parameterUpdate)
            default: continue
            }
            timer.schedule(s.deadlines.next)
        }
    }

    /// Carries out, outside the lock, what `LESignalingAnswers` decided.
    private func answer(_ actions: [AnswerAction]) {
        for action in actions {
            switch action {
            case .reject(let identifier):
                reject(identifier: identifier)
            case .respond(let identifier, let accepted):
                // The response reaches the peer before the link layer's update starts.
                sender.post(ConnectionParameterUpdateRequest.response(identifier: identifier, accepted: accepted != nil).encoded,
                            on: .leSignaling) { [controller, handle] sent in
                    guard let accepted, case .success = sent else { return }
                    controller.post(HCILEConnectionUpdate(connectionHandle: handle, connection: accepted)) { result in
                        if case .failure(let error) = result {
                            controller.logger.warning("LE Connection Update for the peer's request failed",
                                                      metadata: ["handle": "\(handle)", "error": "\(error)"])
                        }
                    }
                }
            case .sendRequest, .awaitResponse, .responseSettled:
                // Sent by the requesting caller, which hears the send's failure; deadlines kept
                // under the lock.
                continue
            case .finish(let waiter, let result):
                switch result {
                case .success(let accepted): _ = waiter.resolve(.success(accepted))
                case .failure(.superseded): _ = waiter.fail(CancellationError())
                case .failure(.malformed(let error)): _ = waiter.fail(error)
                case .failure(.timedOut): _ = waiter.fail(ConnectionError.updateTimeout(address: security.peer, after: Self.responseTimeout))
                case .failure(.disconnected): _ = waiter.fail(HCIError.connectionClosed(handle: handle))
                case .failure(.rejected):
                    _ = waiter.fail(ConnectionError.updateRefused(address: security.peer, status: .unsupportedRemoteFeature))
                }
            case .malformed(let error):
                counts.malformedSignaling.incrementBySoleWriter()
                controller.logger.warning("malformed LE signalling PDU", metadata: ["handle": "\(handle)", "error": "\(error)"])
            }
        }
    }

    /// The link is down: a request of ours waiting for its response fails, and every channel ends.
    func closed() {
        let (answers, followups, acceptors) = signaling.withLock { s in
            s.linkClosed = true
            let answers = s.answers.linkClosed()
            let acceptors = s.acceptors.values.map(\.continuation)
            s.acceptors = [:]
            s.listeners = [:]
            s.deadlines.removeAll()
            s.timedSends = [:]
            let followups = process(s.channels.linkClosed(), &s)
            keepBeside(answers, &s)
            return (answers, followups, acceptors)
        }
        timer.stop()
        answer(answers)
        run(followups)
        for acceptor in acceptors { acceptor.finish() }
    }

    // MARK: Credit-based channels

    /// Accepts the peer's channels on `psm` with `parameters`, when the link is at least at
    /// `security` (else the peer is refused with Insufficient Authentication or Encryption).
    /// Replaces an earlier listener on the PSM; ends when the link does.
    func listen(psm: UInt16, parameters: L2CAPChannelParameters, security: SMPSecurityLevel)
        throws(L2CAPChannelError) -> AsyncStream<L2CAPChannel> {
        try check(psm: psm, parameters)
        let (stream, continuation) = AsyncStream.makeStream(of: L2CAPChannel.self)
        let replaced = signaling.withLock { s -> AsyncStream<L2CAPChannel>.Continuation? in
            guard !s.linkClosed else { return continuation }
            s.generation += 1
            let generation = s.generation
            continuation.onTermination = { [weak self] _ in
                self?.signaling.withLock { s in
                    guard s.acceptors[psm]?.generation == generation else { return }
                    s.acceptors[psm] = nil
                    s.listeners[psm] = nil
                }
            }
            defer { s.acceptors[psm] = (generation, continuation) }
            s.listeners[psm] = L2CAPChannelTable.Listener(parameters: parameters, security: security)
            return s.acceptors[psm]?.continuation
        }
        replaced?.finish()
        return stream
    }

    /// Opens a channel to the peer's `psm` (an LE Credit Based Connection Request), or with
    /// `enhanced` up to five in one Credit Based Connection Request, of which the peer may accept
    /// fewer: the peer's refusal, Command Reject or silence (the signalling timeout) is an
    /// `L2CAPChannelError`.
    func open(psm: UInt16, parameters: L2CAPChannelParameters, enhanced: Int? = nil) async throws -> [L2CAPChannel] {
        try check(psm: psm, parameters, enhanced: enhanced != nil)
        let waiter = Waiter<[L2CAPChannel]>()
        let followups = try signaling.withLock { s throws(L2CAPChannelError) -> [Followup] in
            guard !s.linkClosed else { throw .linkClosed }
            let token = s.nextToken
            s.nextToken += 1
            s.opening[token] = waiter
            do throws(L2CAPChannelError) {
                let actions = if let count = enhanced {
                    try s.channels.openEnhanced(psm: psm, count: count, parameters: parameters, token: token)
                } else {
                    try s.channels.open(psm: psm, parameters: parameters, token: token)
                }
                return process(actions, &s)
            } catch {
                s.opening[token] = nil
                throw error
            }
        }
        run(followups)
        return try await waiter.wait()
    }

    func send(_ sdu: [UInt8], on channel: L2CAPChannel, timeout: Duration) async throws {
        let waiter = Waiter<Void>()
        let cid = channel.cid
        let followups = try signaling.withLock { s throws(L2CAPChannelError) -> [Followup] in
            // A channel that ended may have left its CID to a newer one.
            guard s.objects[cid] === channel else { throw .notOpen }
            s.sendWaiters[cid, default: []].append(waiter)
            do throws(L2CAPChannelError) {
                return process(try s.channels.send(sdu, on: cid), &s)
            } catch {
                s.sendWaiters[cid]?.removeLast()
                if s.sendWaiters[cid]?.isEmpty == true { s.sendWaiters[cid] = nil }
                throw error
            }
        }
        run(followups)
        guard !waiter.isResolved else { return try await waiter.wait() }
        let key = LinkDeadline.send(ObjectIdentifier(waiter))
        signaling.withLock { s in
            s.timedSends[ObjectIdentifier(waiter)] = (waiter, timeout)
            s.deadlines.set(key, at: timer.now + timeout)
            timer.schedule(s.deadlines.next)
        }
        defer {
            signaling.withLock { s in
                s.timedSends[ObjectIdentifier(waiter)] = nil
                s.deadlines.clear(key)
                timer.schedule(s.deadlines.next)
            }
        }
        try await waiter.wait()
    }

    /// The timer fired: a request of ours unanswered for `responseTimeout` ends as the channel
    /// table says, our parameter update request fails with `timeout`, and a `send` past its
    /// deadline fails with `timeout` (its SDU stays queued).
    private func deadlinesPassed(_ now: Duration) {
        var answers: [AnswerAction] = []
        var sends: [(waiter: Waiter<Void>, timeout: Duration)] = []
        let followups = signaling.withLock { s -> [Followup] in
            var followups: [Followup] = []
            for expired in s.deadlines.expire(now: now) {
                switch expired {
                case .response(let identifier):
                    followups += process(s.channels.responseTimedOut(identifier, after: Self.responseTimeout), &s)
                case .parameterUpdate:
                    answers = s.answers.responseTimedOut()
                    keepBeside(answers, &s)
                case .send(let id):
                    if let send = s.timedSends.removeValue(forKey: id) { sends.append(send) }
                }
            }
            timer.schedule(s.deadlines.next)
            return followups
        }
        answer(answers)
        for send in sends { send.waiter.fail(L2CAPChannelError.timeout(after: send.timeout)) }
        run(followups)
    }

    func consumed(_ count: Int, on channel: L2CAPChannel) {
        run(signaling.withLock { s in
            s.objects[channel.cid] === channel ? process(s.channels.consumed(count, on: channel.cid), &s) : []
        })
    }

    func closeChannel(_ channel: L2CAPChannel) {
        run(signaling.withLock { s in
            s.objects[channel.cid] === channel ? process(s.channels.close(channel.cid), &s) : []
        })
    }

    /// The spec's ranges, and an MPS whose K-frames fit the link's reassembly buffer.
    private func check(psm: UInt16, _ parameters: L2CAPChannelParameters, enhanced: Bool = false) throws(L2CAPChannelError) {
        try L2CAPChannelTable.check(psm: psm, parameters, enhanced: enhanced)
        guard Int(parameters.mps) <= sender.maximumPayload else {
            throw .invalidParameters("MPS \(parameters.mps) is above this link's largest K-frame of \(sender.maximumPayload) bytes")
        }
    }

    /// Reader thread: a K-frame for one of the link's channels; false when none has its CID.
    private func receiveKFrame(_ payload: UnsafeRawBufferPointer, on cid: L2CAPChannelID, at time: HostTime) -> Bool {
        let followups = signaling.withLock { s -> [Followup]? in
            s.channels.received(kFrame: payload, on: cid).map { process($0, &s, receivedAt: time) }
        }
        guard let followups else { return false }
        run(followups)
        return true
    }

    /// Reader thread: a signalling command about credit-based channels; false when it is about
    /// something else.
    private func receiveChannelSignaling(_ packet: LESignalingPacket) -> Bool {
        // Read before the lock: the security a listener requires is checked against them.
        let request = packet.code == LESignalingCode.leCreditBasedConnectionRequest.rawValue
            || packet.code == LESignalingCode.creditBasedConnectionRequest.rawValue
        let level = request ? security.level : .none
        let hasBondKey = request && security.bond?.longTermKey != nil
        let followups: [Followup]?
        do throws(L2CAPSignalingError) {
            followups = try signaling.withLock { s throws(L2CAPSignalingError) -> [Followup]? in
                try s.channels.received(packet, listeners: s.listeners, level: level, hasBondKey: hasBondKey).map { process($0, &s) }
            }
        } catch {
            counts.malformedSignaling.incrementBySoleWriter()
            controller.logger.warning("malformed credit-based channel command", metadata: ["handle": "\(handle)", "error": "\(error)"])
            reject(identifier: packet.identifier)
            return true
        }
        guard let followups else { return false }
        run(followups)
        return true
    }

    /// Carries out what the channel table decided, under the signalling lock: what goes out is
    /// queued there, so each channel's K-frames and credits leave in the order decided.
    /// `time`: when the K-frame that completed an SDU was read.
    private func process(_ actions: [L2CAPChannelTable.Action], _ s: inout SignalingCounts, receivedAt time: HostTime? = nil) -> [Followup] {
        var followups: [Followup] = []
        // A K-frame waits here for the next action: when that says its SDU is sent, the SDU's
        // `send` returns once this last K-frame is with the controller.
        var held: (peer: L2CAPChannelID, frame: [UInt8])?
        func flush(completing waiter: Waiter<Void>? = nil) {
            guard let (peer, frame) = held else { return }
            held = nil
            if let waiter {
                sender.post(frame, on: peer) { result in waiter.resolve(result) }
            } else {
                sender.post(frame, on: peer)
            }
        }
        for action in actions {
            if case .kFrame = action {} else if case .sduSent = action {} else { flush() }
            switch action {
            case .signal(let packet):
                sender.post(packet.encoded, on: .leSignaling)
            case .kFrame(let peer, let frame):
                flush()
                held = (peer, frame)
            case .awaitResponse(let identifier):
                s.deadlines.set(.response(identifier), at: timer.now + Self.responseTimeout)
                timer.schedule(s.deadlines.next)
            case .responseReceived(let identifier):
                s.deadlines.clear(.response(identifier))
            case .opened(let cids, let token):
                let opened = cids.map { cid in
                    let channel = makeChannel(cid, s)
                    s.objects[cid] = channel
                    return channel
                }
                if let waiter = s.opening.removeValue(forKey: token) { followups.append(.opened(waiter, opened)) }
            case .openFailed(let token, let error):
                if let waiter = s.opening.removeValue(forKey: token) { followups.append(.openFailed(waiter, error)) }
            case .accepted(let cid, let psm):
                let channel = makeChannel(cid, s)
                s.objects[cid] = channel
                followups.append(.accepted(s.acceptors[psm]?.continuation, channel))
            case .sdu(let cid, let sdu):
                if let channel = s.objects[cid] { followups.append(.deliver(channel, sdu, time ?? .now())) }
            case .sduSent(let cid):
                var waiter: Waiter<Void>?
                if var waiters = s.sendWaiters[cid], !waiters.isEmpty {
                    waiter = waiters.removeFirst()
                    s.sendWaiters[cid] = waiters.isEmpty ? nil : waiters
                }
                flush(completing: waiter)
            case .reconfigured(let cid, let peerMTU):
                s.objects[cid]?.peerReconfigured(mtu: peerMTU)
            case .closed(let cid, let error):
                followups.append(.ended(s.objects.removeValue(forKey: cid), s.sendWaiters.removeValue(forKey: cid) ?? [], error))
            }
        }
        flush()
        return followups
    }

    private func makeChannel(_ cid: L2CAPChannelID, _ s: SignalingCounts) -> L2CAPChannel {
        let channel = s.channels.channel(cid)
        return L2CAPChannel(psm: s.channels.psm(of: cid) ?? 0, cid: cid, mtu: Int(channel?.local.mtu ?? 0), peerMTU: channel?.peerMTU ?? 0,
                            link: self)
    }

    private func run(_ followups: [Followup]) {
        for followup in followups {
            switch followup {
            case .opened(let waiter, let channels):
                // A caller that gave up does not hold the channels: they are closed again.
                if !waiter.succeed(channels) { channels.forEach { $0.close() } }
            case .openFailed(let waiter, let error):
                waiter.fail(error)
            case .accepted(let continuation, let channel):
                // Nobody listens any more: the channel is closed again.
                guard case .enqueued? = continuation?.yield(channel) else {
                    channel.close()
                    break
                }
            case .deliver(let channel, let sdu, let time):
                channel.deliver(sdu, at: time)
            case .ended(let channel, let waiters, let error):
                channel?.ended(error)
                for waiter in waiters { waiter.fail(error ?? .notOpen) }
            }
        }
    }

    private func reject(identifier: UInt8) {
        counts.signalingRejected.incrementBySoleWriter()
        sender.post(LESignalingPacket.commandNotUnderstood(identifier: identifier).encoded, on: .leSignaling)
    }
}

/// What one link's L2CAP layer has seen.
package struct L2CAPLinkCounters: Sendable, Hashable {
    package var pdus = 0
    /// Reassembly errors (bad fragments, hostile lengths); see `L2CAPError`.
    package var errors = 0
    package var malformedSignaling = 0
    /// Signalling commands answered with Command Reject.
    package var signalingRejected = 0
    /// SMP PDUs handed to the Security Manager.
    package var smp = 0
    package var unknownChannel = 0
    package init() {}
}
