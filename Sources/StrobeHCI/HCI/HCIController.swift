import Synchronization

/// The controller driver: owns a transport, runs the init sequence, sends commands under the
/// controller's command flow control, routes events to observers and ACL data to the L2CAP
/// layer, and meters outgoing ACL data by the controller's buffers.
///
/// Control state lives behind one `Mutex`; no lock is held while calling the transport,
/// observers or the ACL handler. Every waiting caller is resumed exactly once: by its answer,
/// its timeout, cancellation, a disconnect or the transport closing.
public final class HCIController: HCIPacketSink {
    public struct Configuration: Sendable {
        /// How long a command may wait for its Command Complete / Command Status once written.
        public var commandTimeout: Duration
        /// The Set Event Mask value sent during `open()`.
        public var eventMask: UInt64
        /// The LE Set Event Mask value sent during `open()`; `nil` chooses by the controller's
        /// HCI version (Core 4.0 and older get only the 4.0 subevents).
        public var leEventMask: UInt64?

        public init(commandTimeout: Duration = .seconds(2), eventMask: UInt64 = HCIEventMask.default,
                    leEventMask: UInt64? = nil) {
            self.commandTimeout = commandTimeout
            self.eventMask = eventMask
            self.leEventMask = leEventMask
        }
    }

    /// Identifies an event handler for `removeEventHandler(_:)`.
    public struct ObserverToken: Sendable, Hashable {
        let id: UInt64
    }

    /// An event with the time its bytes were read.
    public struct TimedEvent: Sendable {
        public var event: HCIEvent
        public var time: HostTime
    }

    public let transport: any HCITransport
    public let configuration: Configuration
    private let clock: ClockAdapter
    private let state = Mutex(State())
    /// Packets sent by `sendReservedACL`, counted without the lock.
    private let reservedPacketsSent = Atomic<Int>(0)
    /// Where received ACL data goes, read by the reader thread without a lock.
    private let aclHandler = PublishedReference<PublishedBox<any HCIACLHandler>>(nil)
    private let aclReceived = ACLReceiveCounts()

    private struct ACLReceiveCounts: ~Copyable, Sendable {
        let received = Atomic<Int>(0)
        let withoutHandler = Atomic<Int>(0)
    }

    /// A driver for `transport`, timing commands on `clock`.
    public init<C: Clock>(transport: any HCITransport, clock: C, configuration: Configuration = Configuration())
    where C.Duration == Duration {
        self.transport = transport
        self.configuration = configuration
        self.clock = ClockAdapter(clock)
    }

    /// A driver timing commands on the system's continuous clock.
    public convenience init(transport: any HCITransport, configuration: Configuration = Configuration()) {
        self.init(transport: transport, clock: ContinuousClock(), configuration: configuration)
    }

    // MARK: - Public state

    /// What `open()` learned; `nil` before it finished.
    public var info: ControllerInfo? { state.withLock { $0.info } }

    public var counters: HCICounters {
        var counters = state.withLock { $0.counters }
        counters.aclPacketsSent += reservedPacketsSent.load(ordering: .relaxed)
        counters.aclPacketsReceived = aclReceived.received.load(ordering: .relaxed)
        counters.aclPacketsWithoutHandler = aclReceived.withoutHandler.load(ordering: .relaxed)
        return counters
    }

    /// The last malformed event or packet, for diagnostics.
    public var lastMalformed: HCIError? { state.withLock { $0.lastMalformed } }

    /// Commands the controller accepts right now (Num_HCI_Command_Packets less those in flight).
    public var commandCredits: Int { state.withLock { $0.commandCredits } }

    /// ACL packets the controller can take right now.
    public var aclCredits: Int { state.withLock { $0.acl.credits } }

    /// ACL packets sent on `handle` that the controller has not yet reported completed.
    public func aclPacketsInFlight(handle: UInt16) -> Int { state.withLock { $0.acl.inFlight[handle] ?? 0 } }

    /// Sleeps on the clock this controller was given, so that layers above share one time source.
    public func sleep(for duration: Duration) async throws { try await clock.sleep(duration) }

    // MARK: - Opening and closing

    /// Starts the transport and runs the init sequence: Reset, Read Local Version Information,
    /// Read BD_ADDR, Read Local Supported Commands, Read Local Supported Features, LE Read Local
    /// Supported Features, Set Event Mask, LE Set Event Mask, LE Read Buffer Size ([v2] when
    /// supported) and, when the controller has no separate LE buffers, Read Buffer Size.
    /// On failure the controller is closed and the error rethrown.
    @discardableResult
    public func open() async throws -> ControllerInfo {
        try state.withLock { s throws(HCIError) in
            switch s.phase {
            case .idle: s.phase = .open
            case .open: throw HCIError.alreadyOpen
            case .closed(let error): throw HCIError.closed(error)
            }
        }
        do {
            try transport.start(self)
        } catch {
            state.withLock { $0.phase = .closed(error as? TransportError) }
            throw error
        }
        do {
            let info = try await initialize()
            state.withLock { s in
                s.info = info
                s.acl.maximumLength = info.leACLDataPacketLength
                s.acl.total = info.totalNumLEACLDataPackets
                s.acl.credits = info.totalNumLEACLDataPackets
            }
            return info
        } catch {
            close()
            throw error
        }
    }

    private func initialize() async throws -> ControllerInfo {
        try await send(HCIReset())
        let version = try await send(HCIReadLocalVersionInformation())
        let address = try await send(HCIReadBDAddr())
        let commands = try await send(HCIReadLocalSupportedCommands())
        let lmpFeatures = try await send(HCIReadLocalSupportedFeatures())
        let leFeatures = try await send(HCILEReadLocalSupportedFeatures())
        try await send(HCISetEventMask(mask: configuration.eventMask))
        // Core 4.0 (HCI version 6) controllers may reject LE mask bits they do not know.
        let leMask = configuration.leEventMask ?? (version.hciVersion <= 6 ? HCIEventMask.leCore40 : HCIEventMask.leDefault)
        try await send(HCILESetEventMask(mask: leMask))
        let leBuffers = commands.contains(.leReadBufferSizeV2)
            ? try await send(HCILEReadBufferSizeV2())
            : try await send(HCILEReadBufferSizeV1())
        var length = Int(leBuffers.leACLDataPacketLength)
        var count = Int(leBuffers.totalNumLEACLDataPackets)
        var shared = false
        if length == 0 || count == 0 {
            // No separate LE buffers: LE data shares the BR/EDR ACL buffers (Vol 4, Part E, 7.8.2).
            let buffers = try await send(HCIReadBufferSize())
            length = Int(buffers.aclDataPacketLength)
            count = Int(buffers.totalNumACLDataPackets)
            shared = true
        }
        guard length > 0, count > 0 else {
            throw HCIError.malformed(packet: "Read Buffer Size", detail: "the controller reports no ACL buffers")
        }
        return ControllerInfo(
            address: address, version: version, supportedCommands: commands, lmpFeatures: lmpFeatures,
            leFeatures: leFeatures, leBufferSize: leBuffers, leACLDataPacketLength: length,
            totalNumLEACLDataPackets: count, usesBREDRBuffers: shared)
    }

    /// Closes the transport. Every pending command and ACL send fails with `HCIError.closed(nil)`,
    /// event streams finish. Closing twice is harmless.
    public func close() {
        shutDown(error: nil)
        transport.close()
    }

    public func transportDidClose(_ error: TransportError?) {
        shutDown(error: error)
    }

    private func shutDown(error: TransportError?) {
        let released = state.withLock { s -> Released? in
            if case .closed = s.phase { return nil }
            s.phase = .closed(error)
            return s.releaseAll()
        }
        guard let released else { return }
        let failure = HCIError.closed(error)
        for timer in released.timers { timer.cancel() }
        for continuation in released.commands { continuation.resume(throwing: failure) }
        for continuation in released.aclWaiters { continuation.resume(throwing: failure) }
        for observer in released.observers { observer.onClose?(failure) }
    }

    // MARK: - Commands

    /// Sends a command and waits for its Command Complete (returning the decoded return
    /// parameters) or, for commands answered by Command Status, for that status.
    /// Throws `HCIError.status` for a non-zero status, `.commandTimeout` when the controller does
    /// not answer within `timeout` (default: the configuration's), `.closed` when the transport
    /// ends first, and `CancellationError` when the calling task is cancelled.
    @discardableResult
    public func send<C: HCICommand>(_ command: C, timeout: Duration? = nil) async throws -> C.ReturnParameters {
        let outcome = try await submit(
            opcode: C.opcode, completion: C.completion, packet: command.packet,
            timeout: timeout ?? configuration.commandTimeout)
        switch outcome {
        case .status(let status):
            guard status.isSuccess else { throw HCIError.status(status) }
            var reader = HCIFieldReader(UnsafeRawBufferPointer(start: nil, count: 0), packet: "Command Status")
            return try decode(C.self, &reader)
        case .complete(let returnParameters):
            return try returnParameters.withUnsafeBytes { bytes in
                var reader = HCIFieldReader(bytes, packet: "Command Complete for \(C.opcode)")
                let status: HCIStatus
                do throws(HCIError) {
                    status = HCIStatus(rawValue: try reader.u8("Status"))
                } catch {
                    recordMalformed(error, isEvent: true)
                    throw error
                }
                guard status.isSuccess else { throw HCIError.status(status) }
                return try decode(C.self, &reader)
            }
        }
    }

    private func decode<C: HCICommand>(_: C.Type, _ reader: inout HCIFieldReader) throws -> C.ReturnParameters {
        do throws(HCIError) {
            return try C.decodeReturnParameters(&reader)
        } catch {
            recordMalformed(error, isEvent: true)
            throw error
        }
    }

    private func submit(opcode: HCIOpcode, completion: HCICommandCompletion, packet: [UInt8],
                        timeout: Duration) async throws -> CommandOutcome {
        let id = state.withLock { s in
            s.nextID += 1
            s.registering.insert(s.nextID)
            return s.nextID
        }
        let outcome = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CommandContinuation) in
                let refusal = state.withLock { s -> (any Error)? in
                    s.registering.remove(id)
                    if s.cancelled.remove(id) != nil { return CancellationError() }
                    switch s.phase {
                    case .idle: return HCIError.notOpen
                    case .closed(let error): return HCIError.closed(error)
                    case .open: break
                    }
                    s.queue.append(PendingCommand(
                        id: id, opcode: opcode, completion: completion, packet: packet,
                        timeout: timeout, continuation: continuation))
                    return nil
                }
                if let refusal {
                    continuation.resume(throwing: refusal)
                } else {
                    drainCommandQueue()
                    resumeStateWaiters()
                }
            }
        } onCancel: {
            cancelCommand(id)
        }
        return outcome
    }

    /// Writes queued commands while the controller has credits. One caller at a time drains;
    /// a call made while another drains (including from inside `transport.send`, when the answer
    /// arrives synchronously) returns at once and the drainer picks its work up.
    private func drainCommandQueue() {
        let claimed = state.withLock { s -> Bool in
            if s.draining { return false }
            s.draining = true
            return true
        }
        guard claimed else { return }
        while true {
            let next = state.withLock { s -> (id: UInt64, packet: [UInt8])? in
                guard case .open = s.phase, s.commandCredits > 0, !s.queue.isEmpty else {
                    s.draining = false
                    return nil
                }
                var command = s.queue.removeFirst()
                s.commandCredits -= 1
                s.counters.commandsSent += 1
                command.timer = startTimer(for: command.id, timeout: command.timeout)
                s.sent.append(command)
                return (command.id, command.packet)
            }
            guard let next else { return }
            do {
                try transport.send(next.packet)
            } catch {
                failSentCommand(next.id, error: HCIError.transport(error as? TransportError ?? .notOpen))
            }
        }
    }

    private func startTimer(for id: UInt64, timeout: Duration) -> Task<Void, Never> {
        // The deadline is fixed now, when the command is written, not when the task first runs.
        let sleepUntilDeadline = clock.deadline(timeout)
        return Task { [weak self] in
            do {
                try await sleepUntilDeadline()
            } catch {
                return  // cancelled: the command was answered
            }
            self?.commandTimedOut(id)
        }
    }

    private func commandTimedOut(_ id: UInt64) {
        let expired = state.withLock { s -> PendingCommand? in
            guard let index = s.sent.firstIndex(where: { $0.id == id }) else { return nil }
            s.counters.commandTimeouts += 1
            // The answer (and its credit count) is lost: allow one command so the queue moves on.
            s.commandCredits = max(s.commandCredits, 1)
            return s.sent.remove(at: index)
        }
        guard let expired else { return }
        expired.continuation?.resume(throwing: HCIError.commandTimeout(expired.opcode))
        drainCommandQueue()
    }

    private func failSentCommand(_ id: UInt64, error: HCIError) {
        let failed = state.withLock { s -> PendingCommand? in
            guard let index = s.sent.firstIndex(where: { $0.id == id }) else { return nil }
            // The controller never saw it: its credit is still ours.
            s.commandCredits += 1
            return s.sent.remove(at: index)
        }
        failed?.timer?.cancel()
        failed?.continuation?.resume(throwing: error)
    }

    private func cancelCommand(_ id: UInt64) {
        let continuation = state.withLock { s -> CommandContinuation? in
            if let index = s.queue.firstIndex(where: { $0.id == id }) {
                // Not written yet: it never reaches the controller.
                return s.queue.remove(at: index).continuation
            }
            if let index = s.sent.firstIndex(where: { $0.id == id }) {
                // Written: keep the entry so the answer is still matched and counted, but free the caller.
                let continuation = s.sent[index].continuation
                s.sent[index].continuation = nil
                return continuation
            }
            if s.registering.contains(id) { s.cancelled.insert(id) }
            return nil
        }
        continuation?.resume(throwing: CancellationError())
    }

    /// Command Complete or Command Status: update credits (from every one, NOPs included) and
    /// resume the oldest command in flight with that opcode.
    private func commandAnswered(opcode: HCIOpcode, credits: UInt8, status: HCIStatus?,
                                 returnParameters: UnsafeRawBufferPointer) {
        let answered = state.withLock { s -> PendingCommand? in
            s.commandCredits = Int(credits)
            guard opcode != .nop else { return nil }
            guard let index = s.sent.firstIndex(where: { $0.opcode == opcode }) else {
                s.counters.unexpectedCommandResponses += 1
                return nil
            }
            // A command that completes with Command Complete may still get a Command Status first
            // (some controllers do); only a failure status ends it.
            if let status, status.isSuccess, s.sent[index].completion == .commandComplete { return nil }
            return s.sent.remove(at: index)
        }
        if let answered {
            answered.timer?.cancel()
            if let continuation = answered.continuation {
                if let status {
                    continuation.resume(returning: .status(status))
                } else {
                    continuation.resume(returning: .complete(Array(returnParameters)))
                }
            }
        }
        drainCommandQueue()
    }

    // MARK: - Events

    /// Registers a handler called on the transport's reader thread with every event that the
    /// command and ACL flow control do not consume (all but Command Complete, Command Status and
    /// Number Of Completed Packets), in arrival order. `onClose` is called once when the
    /// controller closes. Handlers must not block.
    @discardableResult
    public func addEventHandler(onClose: (@Sendable (HCIError) -> Void)? = nil,
                                _ handler: @escaping @Sendable (HCIEvent, HostTime) -> Void) -> ObserverToken {
        let (id, closedWith) = state.withLock { s -> (UInt64, HCIError?) in
            s.nextID += 1
            if case .closed(let error) = s.phase { return (s.nextID, HCIError.closed(error)) }
            s.observers.append(Observer(id: s.nextID, handler: handler, onClose: onClose))
            return (s.nextID, nil)
        }
        if let closedWith { onClose?(closedWith) }
        return ObserverToken(id: id)
    }

    public func removeEventHandler(_ token: ObserverToken) {
        state.withLock { s in s.observers.removeAll { $0.id == token.id } }
    }

    /// The events `addEventHandler` would see, as an async sequence that finishes when the
    /// controller closes or the consumer stops iterating.
    public func events(
        bufferingPolicy: AsyncStream<TimedEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<TimedEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: TimedEvent.self, bufferingPolicy: bufferingPolicy)
        let token = addEventHandler(onClose: { _ in continuation.finish() }) { event, time in
            continuation.yield(TimedEvent(event: event, time: time))
        }
        continuation.onTermination = { [weak self] _ in self?.removeEventHandler(token) }
        return stream
    }

    private func deliver(_ event: HCIEvent, at time: HostTime) {
        let observers = state.withLock { $0.observers }
        for observer in observers { observer.handler(event, time) }
    }

    // MARK: - Receiving

    public func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
        switch type {
        case .event: receiveEvent(payload, at: time)
        case .acl: receiveACL(payload, at: time)
        default: state.withLock { $0.counters.unexpectedPackets += 1 }
        }
    }

    private func receiveEvent(_ packet: UnsafeRawBufferPointer, at time: HostTime) {
        do throws(HCIError) {
            let (code, parameters) = try HCIEvent.split(packet)
            state.withLock { $0.counters.eventsReceived += 1 }
            switch code {
            case HCIEventCode.commandComplete:
                var r = HCIFieldReader(parameters, packet: "Command Complete")
                let credits = try r.u8("Num_HCI_Command_Packets")
                let opcode = HCIOpcode(rawValue: try r.u16("Command_Opcode"))
                commandAnswered(opcode: opcode, credits: credits, status: nil, returnParameters: r.rest())
            case HCIEventCode.commandStatus:
                var r = HCIFieldReader(parameters, packet: "Command Status")
                let status = HCIStatus(rawValue: try r.u8("Status"))
                let credits = try r.u8("Num_HCI_Command_Packets")
                let opcode = HCIOpcode(rawValue: try r.u16("Command_Opcode"))
                commandAnswered(opcode: opcode, credits: credits, status: status, returnParameters: r.rest())
            case HCIEventCode.numberOfCompletedPackets:
                try packetsCompleted(parameters)
            default:
                let event = try HCIEvent(code: code, parameters: parameters)
                switch event {
                case .disconnectionComplete(let disconnection) where disconnection.status.isSuccess:
                    connectionClosed(disconnection.connectionHandle)
                case .hardwareError:
                    state.withLock { $0.counters.hardwareErrors += 1 }
                case .unknown, .unknownLEMeta:
                    state.withLock { $0.counters.unknownEvents += 1 }
                default:
                    break
                }
                deliver(event, at: time)
            }
        } catch {
            recordMalformed(error, isEvent: true)
        }
    }

    private func recordMalformed(_ error: HCIError, isEvent: Bool) {
        state.withLock { s in
            if isEvent { s.counters.malformedEvents += 1 } else { s.counters.malformedACLPackets += 1 }
            s.lastMalformed = error
        }
    }

    // MARK: - ACL

    /// Sets (or clears) where received ACL data goes.
    public func setACLHandler(_ handler: (any HCIACLHandler)?) {
        aclHandler.replace(with: handler.map { PublishedBox($0) })
    }

    private func receiveACL(_ packet: UnsafeRawBufferPointer, at time: HostTime) {
        let header: ACLHeader
        let payload: UnsafeRawBufferPointer
        do throws(HCIError) {
            (header, payload) = try ACLHeader.split(packet)
        } catch {
            recordMalformed(error, isEvent: false)
            return
        }
        // No lock on the data path: the handler is published, the counts are atomic.
        aclReceived.received.add(1, ordering: .relaxed)
        aclHandler.read { box in
            guard let handler = box?.value else {
                aclReceived.withoutHandler.add(1, ordering: .relaxed)
                return
            }
            handler.controllerDidReceiveACL(handle: header.connectionHandle, boundary: header.boundary, payload: payload, at: time)
        }
    }

    /// Sends one ACL packet (one fragment: at most `ControllerInfo.leACLDataPacketLength` bytes),
    /// first waiting for a controller buffer. Never drops: waits until Number Of Completed Packets
    /// or a disconnection frees a buffer, the connection closes (`HCIError.connectionClosed`),
    /// the controller closes, or the task is cancelled.
    public func sendACL(handle: UInt16, boundary: ACLPacketBoundary, payload: [UInt8]) async throws {
        try checkACLLength(payload.count)
        try await acquireACLCredit(handle: handle)
        try payload.withUnsafeBytes { bytes in try writeACL(handle: handle, boundary: boundary, payload: bytes) }
    }

    /// Sends one ACL packet only if a controller buffer is free right now; returns `false`
    /// (sending nothing) otherwise. For hot paths that keep their own queue.
    public func trySendACL(handle: UInt16, boundary: ACLPacketBoundary, payload: UnsafeRawBufferPointer) throws -> Bool {
        try checkACLLength(payload.count)
        let granted = try state.withLock { s throws(HCIError) -> Bool in
            switch s.phase {
            case .idle: throw HCIError.notOpen
            case .closed(let error): throw HCIError.closed(error)
            case .open: break
            }
            guard s.acl.waiters.isEmpty, s.acl.credits > 0 else { return false }
            s.acl.take(handle)
            return true
        }
        guard granted else { return false }
        try writeACL(handle: handle, boundary: boundary, payload: payload)
        return true
    }

    /// Takes one controller buffer for `handle` now, when one is free, nobody waits for one and
    /// another stays free for everyone else; keeps it for a packet made ready ahead of time,
    /// until `sendReservedACL` uses it or `releaseReservedACL` gives it back.
    public func tryReserveACL(handle: UInt16) -> Bool {
        state.withLock { s in
            guard case .open = s.phase, s.acl.waiters.isEmpty, s.acl.credits > 1 else { return false }
            s.acl.take(handle)
            return true
        }
    }

    /// Gives back a buffer taken by `tryReserveACL` and not used. Harmless after the connection
    /// closed (its buffers came back then).
    public func releaseReservedACL(handle: UInt16) {
        let woken = state.withLock { s -> [CheckedContinuation<Void, any Error>] in
            guard s.acl.inFlight[handle] ?? 0 > 0 else { return [] }
            s.acl.returnCredits(handle: handle, count: 1, counters: &s.counters)
            return s.acl.grantWaiters()
        }
        for continuation in woken { continuation.resume() }
    }

    /// Writes a whole H4 ACL packet (type byte, header, one fragment) on a buffer taken by
    /// `tryReserveACL`: no lock and no allocation before the bytes are with the transport. On
    /// failure the buffer is given back.
    public func sendReservedACL(_ h4Packet: UnsafeRawBufferPointer, handle: UInt16) throws(HCIError) {
        do {
            try transport.send(h4Packet)
        } catch {
            releaseReservedACL(handle: handle)
            throw HCIError.transport(error as? TransportError ?? .notOpen)
        }
        reservedPacketsSent.add(1, ordering: .relaxed)
    }

    private func checkACLLength(_ length: Int) throws {
        let maximum = state.withLock { $0.acl.maximumLength }
        guard maximum > 0 else { throw HCIError.notOpen }
        guard length <= maximum else { throw HCIError.aclPayloadTooLong(length: length, maximum: maximum) }
    }

    private func acquireACLCredit(handle: UInt16) async throws {
        let id = state.withLock { s in
            s.nextID += 1
            s.registering.insert(s.nextID)
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { s -> Result<Void, any Error>? in
                    s.registering.remove(id)
                    if s.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    switch s.phase {
                    case .idle: return .failure(HCIError.notOpen)
                    case .closed(let error): return .failure(HCIError.closed(error))
                    case .open: break
                    }
                    // First come, first served: no overtaking queued senders.
                    if s.acl.waiters.isEmpty, s.acl.credits > 0 {
                        s.acl.take(handle)
                        return .success(())
                    }
                    s.acl.waiters.append(ACLWaiter(id: id, handle: handle, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) } else { resumeStateWaiters() }
            }
        } onCancel: {
            let continuation = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                if let index = s.acl.waiters.firstIndex(where: { $0.id == id }) {
                    return s.acl.waiters.remove(at: index).continuation
                }
                if s.registering.contains(id) { s.cancelled.insert(id) }
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    private func writeACL(handle: UInt16, boundary: ACLPacketBoundary, payload: UnsafeRawBufferPointer) throws {
        let header = ACLHeader(connectionHandle: handle, boundary: boundary, dataTotalLength: UInt16(payload.count))
        let size = 1 + ACLHeader.size + payload.count
        do {
            // One whole H4 packet, built without a heap allocation for the usual sizes.
            try withUnsafeTemporaryAllocation(byteCount: size, alignment: 1) { buffer in
                buffer.storeBytes(of: HCIPacketType.acl.rawValue, toByteOffset: 0, as: UInt8.self)
                header.store(into: buffer, at: 1)
                UnsafeMutableRawBufferPointer(rebasing: buffer[(1 + ACLHeader.size)...]).copyMemory(from: payload)
                try transport.send(UnsafeRawBufferPointer(buffer))
            }
            state.withLock { $0.counters.aclPacketsSent += 1 }
        } catch {
            // The controller never got it: give the buffer back.
            let woken = state.withLock { s in
                s.acl.returnCredits(handle: handle, count: 1, counters: &s.counters)
                return s.acl.grantWaiters()
            }
            for continuation in woken { continuation.resume() }
            throw HCIError.transport(error as? TransportError ?? .notOpen)
        }
    }

    /// Number Of Completed Packets: give the buffers back, walking the entries in place.
    private func packetsCompleted(_ parameters: UnsafeRawBufferPointer) throws(HCIError) {
        let woken = try state.withLock { s throws(HCIError) -> [CheckedContinuation<Void, any Error>] in
            try HCIEvent.forEachCompletedPackets(parameters) { entry in
                s.acl.returnCredits(handle: entry.connectionHandle, count: Int(entry.count), counters: &s.counters)
            }
            return s.acl.grantWaiters()
        }
        for continuation in woken { continuation.resume() }
    }

    /// Disconnection Complete: the controller flushed the connection's packets; their buffers are
    /// free and senders still waiting on that handle fail.
    private func connectionClosed(_ handle: UInt16) {
        let (failed, woken) = state.withLock { s in
            let inFlight = s.acl.inFlight.removeValue(forKey: handle) ?? 0
            s.acl.credits = min(s.acl.credits + inFlight, s.acl.total)
            var failed: [CheckedContinuation<Void, any Error>] = []
            s.acl.waiters.removeAll { waiter in
                guard waiter.handle == handle else { return false }
                failed.append(waiter.continuation)
                return true
            }
            return (failed, s.acl.grantWaiters())
        }
        for continuation in failed { continuation.resume(throwing: HCIError.connectionClosed(handle: handle)) }
        for continuation in woken { continuation.resume() }
    }
}

// MARK: - Test seam

extension HCIController {
    /// Suspends until `condition` holds for the control state, checked whenever a command is
    /// queued or a sender starts waiting for an ACL buffer, or until the task is cancelled. Lets
    /// tests know a caller is parked without sleeping.
    func waitUntil(_ condition: @escaping @Sendable (borrowing State) -> Bool) async {
        let id = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let satisfied = state.withLock { s -> Bool in
                    if condition(s) || Task.isCancelled { return true }
                    s.stateWaiters.append(StateWaiter(id: id, condition: condition, continuation: continuation))
                    return false
                }
                if satisfied { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s -> StateWaiter? in
                guard let index = s.stateWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.stateWaiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }

    private func resumeStateWaiters() {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            guard !s.stateWaiters.isEmpty else { return [] }
            let waiters = s.stateWaiters
            s.stateWaiters.removeAll()
            var ready: [CheckedContinuation<Void, Never>] = []
            for waiter in waiters {
                if waiter.condition(s) { ready.append(waiter.continuation) } else { s.stateWaiters.append(waiter) }
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}

// MARK: - State

extension HCIController {
    typealias CommandContinuation = CheckedContinuation<CommandOutcome, any Error>

    enum CommandOutcome: Sendable {
        case complete([UInt8])
        case status(HCIStatus)
    }

    enum Phase {
        case idle
        case open
        case closed(TransportError?)
    }

    struct PendingCommand {
        let id: UInt64
        let opcode: HCIOpcode
        let completion: HCICommandCompletion
        let packet: [UInt8]
        let timeout: Duration
        /// `nil` once the caller was cancelled after the command was written.
        var continuation: CommandContinuation?
        var timer: Task<Void, Never>? = nil
    }

    struct Observer {
        let id: UInt64
        let handler: @Sendable (HCIEvent, HostTime) -> Void
        let onClose: (@Sendable (HCIError) -> Void)?
    }

    struct ACLWaiter {
        let id: UInt64
        let handle: UInt16
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// Host-to-controller ACL flow control (Vol 4, Part E, 4.1.1): one credit per buffer.
    struct ACLFlow {
        var maximumLength = 0
        var total = 0
        var credits = 0
        var inFlight: [UInt16: Int] = [:]
        var waiters: [ACLWaiter] = []

        mutating func take(_ handle: UInt16) {
            credits -= 1
            inFlight[handle, default: 0] += 1
        }

        mutating func returnCredits(handle: UInt16, count: Int, counters: inout HCICounters) {
            let outstanding = inFlight[handle] ?? 0
            let returned = min(count, outstanding)
            if count > outstanding { counters.unexpectedCompletedPackets += count - outstanding }
            if returned == outstanding {
                inFlight.removeValue(forKey: handle)
            } else {
                inFlight[handle] = outstanding - returned
            }
            credits = min(credits + returned, total)
        }

        /// Hands free credits to waiting senders in order; returns whom to resume.
        mutating func grantWaiters() -> [CheckedContinuation<Void, any Error>] {
            guard credits > 0, !waiters.isEmpty else { return [] }
            var granted: [CheckedContinuation<Void, any Error>] = []
            while credits > 0, !waiters.isEmpty {
                let waiter = waiters.removeFirst()
                take(waiter.handle)
                granted.append(waiter.continuation)
            }
            return granted
        }
    }

    struct StateWaiter {
        let id: UInt64
        let condition: @Sendable (borrowing State) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    struct Released {
        var commands: [CommandContinuation]
        var timers: [Task<Void, Never>]
        var aclWaiters: [CheckedContinuation<Void, any Error>]
        var observers: [Observer]
    }

    struct State {
        var phase = Phase.idle
        var info: ControllerInfo?
        var nextID: UInt64 = 0
        /// Ids handed out whose continuation is not stored yet, and those of them cancelled meanwhile.
        var registering: Set<UInt64> = []
        var cancelled: Set<UInt64> = []
        /// Num_HCI_Command_Packets: one until the controller says otherwise.
        var commandCredits = 1
        var queue: [PendingCommand] = []
        var sent: [PendingCommand] = []
        var draining = false
        var acl = ACLFlow()
        var observers: [Observer] = []
        var counters = HCICounters()
        var lastMalformed: HCIError?
        var stateWaiters: [StateWaiter] = []

        mutating func releaseAll() -> Released {
            let pending = queue + sent
            queue.removeAll()
            sent.removeAll()
            let waiters = acl.waiters.map(\.continuation)
            acl.waiters.removeAll()
            acl.credits = 0
            let released = Released(
                commands: pending.compactMap(\.continuation), timers: pending.compactMap(\.timer),
                aclWaiters: waiters, observers: observers)
            observers.removeAll()
            return released
        }
    }
}

/// The injected clock, reduced to what the driver needs so that `HCIController` is not generic.
struct ClockAdapter: Sendable {
    /// Fixes a deadline `duration` from now and returns a sleep until it.
    let deadline: @Sendable (Duration) -> @Sendable () async throws -> Void
    let sleep: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        deadline = { duration in
            let deadline = clock.now.advanced(by: duration)
            return { try await clock.sleep(until: deadline, tolerance: nil) }
        }
        sleep = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
    }
}
