import Logging
import StrobeBase
import Synchronization

/// The controller driver: owns a transport, runs the init sequence, and does the I/O for the
/// state machines that hold the rules: `HCICommandFlow` (commands under Num_HCI_Command_Packets)
/// and `ACLCredits` (outgoing ACL data under the controller's buffers). Events go to observers,
/// received ACL data to the handler registered for its connection handle.
///
/// Control state lives behind one `Mutex`; no lock is held while calling the transport,
/// observers or handlers. Every wait has a deadline counted from when it was queued, driven by
/// one timer; every waiting caller is resumed exactly once (`Waiter`): by its answer, its
/// deadline, cancellation, a disconnect or the transport closing. The receive path takes no
/// lock and allocates nothing for ACL data.
public final class HCIController: HCIPacketSink {
    /// Deadlines, event masks, liveness probing and logging for one controller, fixed when the
    /// `HCIController` is made.
    package struct Configuration: Sendable {
        /// How long a command may take from when it is queued to its Command Complete / Command
        /// Status, waiting for command credits included.
        package var commandTimeout: Duration
        /// How long a sender may wait for a controller buffer. A controller that returns none for
        /// this long (no Number Of Completed Packets) fails the sender, and the link above gives
        /// up. A peer that stops acknowledging is dropped by its supervision timeout first (4 s
        /// as this host asks for it), which frees the buffers.
        package var aclCreditTimeout: Duration
        /// The Set Event Mask value sent during `open()`: the events the stack handles.
        package var eventMask: UInt64 = HCIEventMask.default
        /// The LE Set Event Mask value sent during `open()`; `nil` chooses by the controller's
        /// HCI version (Core 4.0 and older get only the 4.0 subevents).
        package var leEventMask: UInt64?
        /// When set, the controller is asked for its address (Read BD_ADDR) this often once open,
        /// and one that does not answer within `commandTimeout` is closed as unresponsive: a
        /// controller (or the link to it) that falls silent otherwise looks exactly like one with
        /// nothing to report. `nil`: no probe.
        package var livenessProbeInterval: Duration?
        /// Where the stack reports what it counts and drops (malformed packets, failed and timed
        /// out commands, links that end and why), for this controller and the connections on it.
        /// Quiet unless the app gives one; never carries keys or tokens.
        package var logger: Logger
        /// How the host's loop and the transport's reader thread are run.
        package var threadScheduling: ThreadScheduling

        /// Defaults: commands time out after 2 s, ACL sends after 10 s without a controller buffer;
        /// the LE event mask is chosen by the controller's HCI version; no liveness probe;
        /// `Logger.strobeQuiet`, which logs nothing; raised threads where permitted.
        package init(commandTimeout: Duration = .seconds(2), aclCreditTimeout: Duration = .seconds(10),
                    leEventMask: UInt64? = nil,
                    livenessProbeInterval: Duration? = nil, logger: Logger = .strobeQuiet,
                    threadScheduling: ThreadScheduling = .raisedWherePermitted) {
            self.commandTimeout = commandTimeout
            self.aclCreditTimeout = aclCreditTimeout
            self.leEventMask = leEventMask
            self.livenessProbeInterval = livenessProbeInterval
            self.logger = logger
            self.threadScheduling = threadScheduling
        }
    }

    /// Identifies an event handler for `removeEventHandler(_:)`.
    package struct ObserverToken: Sendable, Hashable {
        let id: UInt64
    }

    /// An event with the time its bytes were read.
    package struct TimedEvent: Sendable {
        package var event: HCIEvent
        public var time: HostTime
    }

    /// The link to the controller: started by `open()`, closed by `close()`.
    public let transport: any HCITransport
    /// The settings given when the controller was made.
    package let configuration: Configuration
    /// `configuration.logger`, for the layers built on this controller.
    public var logger: Logger { configuration.logger }
    let clock: ElapsedClock
    let state = Lock(Control())
    /// The host's loop: the thread every deadline of this controller and its links fires on (on
    /// the real clock).
    package let loop: HostLoop
    /// The one timer behind every command and ACL deadline.
    let timer: DeadlineTimer
    /// Where received ACL data goes, by connection handle: the reader's own copy of `Control.routes`.
    let aclRoutes = ReaderHandoff<ACLRouteTable>(nil)
    /// Counted on the receive path and by `ACLBufferReservation.send`, without the lock.
    let aclCounts = ACLCounts()
    /// Set by the reader once the transport first reports the end of a read's packets.
    let transportReportsBatches = Atomic<Bool>(false)
    /// The controller's one scan, which every scanner on it joins.
    package let scanning: LEScanOwner

    struct ACLCounts: ~Copyable, Sendable {
        let received = Atomic<Int>(0)
        let withoutHandler = Atomic<Int>(0)
        let malformed = Atomic<Int>(0)
        let sent = Atomic<Int>(0)
    }

    /// A driver for `transport`, timing commands on `clock`.
    package init<C: Clock>(transport: any HCITransport, clock: C, configuration: Configuration = Configuration())
    where C.Duration == Duration {
        self.transport = transport
        self.configuration = configuration
        self.clock = ElapsedClock(clock)
        loop = HostLoop(clock: self.clock, scheduling: configuration.threadScheduling)
        timer = DeadlineTimer(loop: loop)
        let scanStep = Lock<(@Sendable (LEScanArbiter.Step) async throws -> Void)?>(nil)
        scanning = LEScanOwner(executor: loop.executor) { step in
            guard let perform = scanStep.withLock({ $0 }) else { throw HCIError.closed(nil) }
            try await perform(step)
        }
        timer.onFire { [weak self] now in self?.deadlinePassed(now) }
        scanStep.withLock { $0 = { [weak self] step in
            guard let self else { throw HCIError.closed(nil) }
            try await self.performScanStep(step)
        } }
    }

    /// A driver timing commands on the system's continuous clock.
    package convenience init(transport: any HCITransport, configuration: Configuration = Configuration()) {
        self.init(transport: transport, clock: ContinuousClock(), configuration: configuration)
    }

    deinit {
        timer.stop()
    }

    // MARK: - Public state

    /// What `open()` learned; `nil` before it finished.
    public var info: ControllerInfo? { state.withLock { $0.info } }

    package var counters: HCICounters {
        var counters = state.withLock { s in
            var counters = s.counters
            counters.commandsSent = s.commands.commandsSent
            counters.commandTimeouts = s.commands.commandTimeouts
            counters.unexpectedCommandResponses = s.commands.unexpectedAnswers
            counters.unexpectedCompletedPackets = s.acl.unexpectedCompletions
            return counters
        }
        counters.aclPacketsSent = aclCounts.sent.load(ordering: .relaxed)
        counters.aclPacketsReceived = aclCounts.received.load(ordering: .relaxed)
        counters.aclPacketsWithoutHandler = aclCounts.withoutHandler.load(ordering: .relaxed)
        counters.malformedACLPackets = aclCounts.malformed.load(ordering: .relaxed)
        return counters
    }

    /// The last malformed event or packet, for diagnostics.
    public var lastMalformed: HCIError? { state.withLock { $0.lastMalformed } }

    /// Why the controller closed: `nil` while open, `.closed(cause)` after.
    public var closeError: HCIError? {
        state.withLock { s in
            if case .closed(let cause) = s.phase { return HCIError.closed(cause) }
            return nil
        }
    }

    /// Commands the controller accepts right now (Num_HCI_Command_Packets less those in flight).
    public var commandCredits: Int { state.withLock { $0.commands.credits } }

    /// ACL packets the controller can take right now.
    public var aclCredits: Int { state.withLock { $0.acl.credits } }

    /// ACL packets sent on `handle` that the controller has not yet reported completed.
    public func aclPacketsInFlight(handle: ConnectionHandle) -> Int { state.withLock { $0.acl.inFlight[handle] ?? 0 } }

    /// Sleeps on the clock this controller was given, so that layers above share one time source.
    public func sleep(for duration: Duration) async throws { try await clock.sleep(for: duration) }

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
            shutDown(cause: error)
            throw error
        }
        do {
            let info = try await initialize()
            state.withLock { s in
                s.info = info
                s.acl.configure(total: info.totalNumLEACLDataPackets, maximumLength: info.leACLDataPacketLength)
            }
            logger.info("controller open", metadata: [
                "transport": "\(transport.name)", "address": "\(info.address)",
                "leACLBuffers": "\(info.totalNumLEACLDataPackets) x \(info.leACLDataPacketLength)",
            ])
            if let interval = configuration.livenessProbeInterval {
                Task(executorPreference: loop.executor) { [weak self] in await self?.probeLiveness(every: interval) }
            }
            return info
        } catch {
            // A transport that failed during init keeps its cause: report that, not what it broke.
            let cause = closeError
            close()
            throw cause ?? error
        }
    }

    private func initialize() async throws -> ControllerInfo {
        try await send(HCIReset())
        let version = try await send(HCIReadLocalVersionInformation())
        let address = try await send(HCIReadBDAddr()).bdAddr
        let commands = try await send(HCIReadLocalSupportedCommands()).supportedCommands
        let lmpFeatures = try await send(HCIReadLocalSupportedFeatures()).lmpFeatures
        let leFeatures = try await send(HCILEReadLocalSupportedFeatures()).leFeatures
        try await send(HCISetEventMask(mask: configuration.eventMask))
        // Core 4.0 (HCI version 6) controllers may reject LE mask bits they do not know.
        let leMask = configuration.leEventMask ?? (version.hciVersion <= 6 ? HCIEventMask.leCore40 : HCIEventMask.leDefault)
        try await send(HCILESetEventMask(mask: leMask))
        let leBuffers = commands.contains(.leReadBufferSizeV2)
            ? try await send(HCILEReadBufferSizeV2()).bufferSize
            : try await send(HCILEReadBufferSizeV1()).bufferSize
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

    /// Closes the transport. Every pending command and ACL send fails with `HCIError.closed`
    /// (with the transport's cause when it had failed first), event streams finish. Closing
    /// twice is harmless.
    public func close() {
        shutDown(cause: nil)
        transport.close()
    }

    /// As the host's loop is run: `Configuration.threadScheduling`.
    public var readerScheduling: ThreadScheduling { configuration.threadScheduling }

    /// Called by the transport once it stops delivering: every pending command and ACL send fails
    /// with `HCIError.closed(error)` and event streams finish, as after `close()`.
    public func transportDidClose(_ error: TransportError?) {
        shutDown(cause: error)
    }

    /// Closes the controller because of `cause`, which every waiter and stream then carries.
    public func fail(_ cause: TransportError) {
        shutDown(cause: cause)
        transport.close()
    }

    /// Asks for the address every `interval` until closed; a probe left unanswered for the
    /// command timeout fails the controller as unresponsive.
    private func probeLiveness(every interval: Duration) async {
        while closeError == nil {
            do { try await sleep(for: interval) } catch { return }
            do {
                _ = try await send(HCIReadBDAddr())
            } catch HCIError.commandTimeout, HCIError.noCommandCredits {
                fail(.unresponsive(probe: "Read BD_ADDR", after: configuration.commandTimeout))
                return
            } catch {
                // An answer with an error status is still an answer; a closed controller ends
                // the loop above.
                if closeError == nil { logger.warning("liveness probe failed", metadata: ["error": "\(error)"]) }
            }
        }
    }

    /// The first cause wins: a close after the transport failed keeps the failure.
    private func shutDown(cause: TransportError?) {
        let released = state.withLock { s -> Released? in
            if case .closed = s.phase { return nil }
            s.phase = .closed(cause)
            let error = HCIError.closed(cause)
            let acl = s.acl.close(error)
            let released = Released(
                commands: s.commands.close(error), acl: acl, flushes: s.acl.endedFlushes(now: .zero), observers: s.observers, error: error)
            s.observers.removeAll()
            s.routes.removeAll()
            return released
        }
        guard let released else { return }
        scanning.controllerClosed(released.error)
        if let cause {
            logger.error("controller closed", metadata: ["cause": "\(cause)"])
        } else {
            logger.debug("controller closed")
        }
        timer.stop()
        aclRoutes.offer(nil)
        finish(released.commands)
        finish(released.acl)
        finish(released.flushes)
        for observer in released.observers { observer.onClose?(released.error) }
    }

    // MARK: - Deadlines

    /// The timer's call: every command and ACL wait whose deadline passed ends now.
    func deadlinePassed(_ now: Duration) {
        let (commands, grants, flushes) = state.withLock { s in
            defer { timer.schedule(s.nextDeadline) }
            return (s.commands.expire(now: now), s.acl.expire(now: now), s.acl.endedFlushes(now: now))
        }
        finish(commands)
        finish(grants)
        finish(flushes)
        drainCommandQueue()
    }

    func finish(_ completions: [HCICommandFlow<Waiter<HCICommandAnswer>>.Completion]) {
        for completion in completions { completion.token.resolve(completion.result.mapError { $0 }) }
    }

    func finish(_ flushes: [ACLCredits<Waiter<Void>>.Flush]) {
        for flush in flushes {
            flush.token.resolve(flush.sent ? .success(()) : .failure(HCIError.connectionClosed(handle: flush.handle)))
        }
    }

    /// A buffer granted to a sender who gave up meanwhile goes back at once.
    func finish(_ grants: [ACLCredits<Waiter<Void>>.Grant]) {
        for grant in grants where !grant.token.resolve(grant.result.mapError { $0 }) {
            if case .success = grant.result { giveBackACLBuffer(grant.handle) }
        }
    }
}

// MARK: - State

extension HCIController {
    /// Senders waiting for a controller buffer.
    package var aclWaitingCount: Int { state.withLock { $0.acl.waitingCount } }
    /// Commands waiting for a command credit.
    package var queuedCommandCount: Int { state.withLock { $0.commands.queued.count } }
    /// Whether the controller has closed.
    package var isClosed: Bool { state.withLock { if case .closed = $0.phase { true } else { false } } }

    enum Phase {
        case idle
        case open
        case closed(TransportError?)
    }

    struct Observer {
        let id: UInt64
        let handler: @Sendable (HCIEvent, HostTime) -> Void
        let onClose: (@Sendable (HCIError) -> Void)?
    }

    struct Released {
        var commands: [HCICommandFlow<Waiter<HCICommandAnswer>>.Completion]
        var acl: [ACLCredits<Waiter<Void>>.Grant]
        var flushes: [ACLCredits<Waiter<Void>>.Flush]
        var observers: [Observer]
        var error: HCIError
    }

    struct Control {
        var phase = Phase.idle
        var info: ControllerInfo?
        var nextID: UInt64 = 0
        var commands = HCICommandFlow<Waiter<HCICommandAnswer>>()
        var acl = ACLCredits<Waiter<Void>>()
        /// One caller at a time writes commands, in the order the flow hands them out.
        var draining = false
        var observers: [Observer] = []
        /// The handlers of received ACL data; the reader uses its copy, `aclRoutes`.
        var routes: [ConnectionHandle: any HCIACLHandler] = [:]
        var counters = HCICounters()
        var lastMalformed: HCIError?

        var nextDeadline: Duration? {
            [commands.nextDeadline, acl.nextDeadline].compactMap { $0 }.min()
        }
    }
}

