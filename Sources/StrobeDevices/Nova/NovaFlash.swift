import StrobeHCI
import StrobeHost
import Synchronization

/// One connected Nova flash, V1 or V2 (chosen by the service it exposes), driven with the
/// reference SDK's discipline: one command in flight, the rest queued, a 2 s ack timeout, and
/// a protocol violation (unparsable response, ack for another request) failing everything and
/// asking for a disconnect. `NovaCommandQueue` holds the rules; this class does the I/O: GATT
/// writes in order, notifications in, one timer.
public final class NovaFlash: ATTValueHandler, Sendable {
    public let model: NovaModel
    public let gatt: GATTClient
    let requestHandle: AttributeHandle
    let defaultsHandle: AttributeHandle?
    let countersHandle: AttributeHandle?
    let batteryHandle: AttributeHandle?
    private let clock: DeviceClock
    private let writes: AsyncStream<[UInt8]>.Continuation
    private let state: Mutex<State>
    private let broadcast = AsyncBroadcast<NovaFlashEvent>()

    private struct State {
        var queue: NovaCommandQueue<DeviceClock.Instant>
        var waiters: [NovaCommandTicket: Waiter] = [:]
        /// Tickets in the order they were queued and not yet written: the queue writes FIFO.
        var unwritten: [NovaCommandTicket] = []
        var timer: Task<Void, Never>?
        var disconnectHandler: (@Sendable () -> Void)?
        /// A FLASH readied for a trigger (`armFlash`); the queue holds its request id.
        var armed: NovaArmedFlash?

        /// An armed FLASH that went out becomes the command in flight, stamped with its fire time;
        /// one that could not go out is withdrawn. Whoever touches the state next does this, so
        /// an ack can never find the queue unaware of its request.
        mutating func settleArmed(now: DeviceClock.Instant) -> [NovaCommandQueue<DeviceClock.Instant>.Action] {
            guard let armed, !armed.isArmed else { return [] }
            self.armed = nil
            if armed.hasFired {
                waiters[armed.ticket]?.written = armed.firedInstant
                return queue.armedWritten(now: armed.firedInstant)
            }
            waiters[armed.ticket]?.abandoned = true
            return queue.disarm(now: now)
        }
    }

    private struct Waiter {
        var continuation: CheckedContinuation<NovaAcknowledgement, any Error>?
        var written: DeviceClock.Instant?
        /// The outcome, when it came before anyone waited for it.
        var result: Result<NovaAcknowledgement, NovaCommandFailure>?
        /// The waiting task was cancelled: nobody will collect the outcome.
        var abandoned = false
    }

    /// Finds the Nova service on a connected peer, subscribes to its response characteristic and
    /// returns the flash, ready for commands.
    public static func attach<C: Clock>(
        to gatt: GATTClient, clock: C, ackTimeout: Duration = NovaCommandQueue<DeviceClock.Instant>.defaultAckTimeout
    ) async throws -> NovaFlash where C.Duration == Duration {
        let services = try await gatt.discoverPrimaryServices()
        let v2 = NovaProfile.v2Service
        let v1 = NovaProfile.v1Service
        guard let service = services.first(where: { $0.uuid == v2 }) ?? services.first(where: { $0.uuid == v1 }) else {
            throw NovaSetupError.notANova(services: services.map(\.uuid))
        }
        let model: NovaModel = service.uuid == v2 ? .v2 : .v1
        let characteristics = try await gatt.discoverCharacteristics(of: service)
        func find(_ uuid: BluetoothUUID) -> GATTCharacteristic? {
            let target = uuid
            return characteristics.first { $0.uuid == target }
        }
        guard let request = find(model.requestCharacteristic) else {
            throw NovaSetupError.missingCharacteristic(model.requestCharacteristic)
        }
        guard let response = find(model.responseCharacteristic) else {
            throw NovaSetupError.missingCharacteristic(model.responseCharacteristic)
        }
        var batteryHandle: AttributeHandle?
        if model == .v2, let battery = services.first(where: { $0.uuid == NovaProfile.batteryService }) {
            batteryHandle = try await gatt.discoverCharacteristics(of: battery)
                .first { $0.uuid == NovaProfile.batteryLevel }?.valueHandle
        }
        let flash = NovaFlash(
            model: model, gatt: gatt, requestHandle: request.valueHandle,
            defaultsHandle: model == .v2 ? find(NovaProfile.v2FlashDefaults)?.valueHandle : nil,
            countersHandle: model == .v2 ? find(NovaProfile.v2Counters)?.valueHandle : nil,
            batteryHandle: batteryHandle, clock: DeviceClock(clock), ackTimeout: ackTimeout)
        try await gatt.subscribe(response, to: .notification, handler: flash)
        return flash
    }

    init(model: NovaModel, gatt: GATTClient, requestHandle: AttributeHandle, defaultsHandle: AttributeHandle?, countersHandle: AttributeHandle?,
         batteryHandle: AttributeHandle?, clock: DeviceClock, ackTimeout: Duration) {
        self.model = model
        self.gatt = gatt
        self.requestHandle = requestHandle
        self.defaultsHandle = defaultsHandle
        self.countersHandle = countersHandle
        self.batteryHandle = batteryHandle
        self.clock = clock
        state = Mutex(State(queue: NovaCommandQueue(model: model, ackTimeout: ackTimeout)))
        // One writer, so that requests reach the flash in queue order.
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        writes = continuation
        Task { [gatt, requestHandle] in
            for await bytes in stream {
                // A failed write leaves the command to its ack timeout or to the disconnect.
                try? await gatt.write(bytes, handle: requestHandle)
            }
        }
    }

    deinit {
        writes.finish()
        let armed = state.withLock { s in
            s.timer?.cancel()
            return s.armed
        }
        // An armed write would otherwise keep the bearer's slot and a controller buffer.
        armed?.write.disarm()
    }

    // MARK: Commands

    /// Lights the flash and returns once it has acknowledged (or throws `NovaCommandFailure`).
    /// Settings with nothing to show go out as OFF.
    @discardableResult
    public func beginFlash(_ settings: NovaFlashSettings) async throws -> NovaAcknowledgement {
        try await run(.flash(settings))
    }

    /// Queues a FLASH without suspending: when the flash is idle its request is handed to the
    /// writer before this returns, so a shot's commands to several flashes leave together, with
    /// no task in between. Collect the outcome with `acknowledgement(of:)`.
    public func enqueueFlash(_ settings: NovaFlashSettings) -> NovaCommandTicket {
        enqueue(.flash(settings))
    }

    /// Waits for the end of a command queued by `enqueueFlash`: its ack, or why it failed. Each
    /// ticket is collected once; cancelling the wait leaves the command queued (the flash may
    /// already have it) and drops its outcome.
    public func acknowledgement(of ticket: NovaCommandTicket) async throws -> NovaAcknowledgement {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<NovaAcknowledgement, any Error>) in
                let immediate = state.withLock { s -> Result<NovaAcknowledgement, any Error>? in
                    if Task.isCancelled {
                        s.waiters[ticket]?.abandoned = true
                        return .failure(CancellationError())
                    }
                    guard var waiter = s.waiters[ticket], !waiter.abandoned else { return .failure(NovaTicketError(ticket: ticket)) }
                    if let result = waiter.result {
                        s.waiters[ticket] = nil
                        return result.mapError { $0 as any Error }
                    }
                    waiter.continuation = continuation
                    s.waiters[ticket] = waiter
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let continuation = state.withLock { s -> CheckedContinuation<NovaAcknowledgement, any Error>? in
                let continuation = s.waiters[ticket]?.continuation
                s.waiters[ticket]?.continuation = nil
                s.waiters[ticket]?.abandoned = true
                return continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Readies a FLASH for a trigger: its request id is reserved and its Write Request encoded
    /// into one ACL packet with a controller buffer held, so that `NovaArmedFlash.fire()` sends it
    /// with no lock and no allocation. Only when the flash is idle and connected; `nil` otherwise.
    /// Until it fires it holds the flash: any other command, or any GATT request to the flash,
    /// withdraws it first (its ticket then fails with `.withdrawn`). After a fire, call
    /// `armedFlashFired(_:)`, then `acknowledgement(of:)` with its ticket.
    public func armFlash(_ settings: NovaFlashSettings) async -> NovaArmedFlash? {
        let reserved = state.withLock { s -> (ticket: NovaCommandTicket, bytes: [UInt8])? in
            guard s.armed == nil, let reserved = s.queue.arm(.flash(settings)) else { return nil }
            s.waiters[reserved.ticket] = Waiter()
            return reserved
        }
        guard let (ticket, bytes) = reserved else { return nil }
        let write = try? await gatt.armWrite(bytes, handle: requestHandle) { [weak self] in self?.armedWithdrawn(ticket) }
        let now = clock.now
        let armed = write.map { NovaArmedFlash(ticket: ticket, write: $0, clock: clock) }
        let (outcome, withdraw) = state.withLock { s -> (Outcome, Bool) in
            guard let armed else {
                // No write could be armed: give the queue back its turn.
                s.waiters[ticket]?.abandoned = true
                return (Self.perform(s.queue.disarm(now: now), in: &s, now: now, clock: clock, writes: writes, flash: self), false)
            }
            s.armed = armed
            // Already withdrawn (a request came for the bearer meanwhile): the queue moves on.
            let settled = s.settleArmed(now: now)
            // Commands queued while the write was being armed go first.
            return (Self.perform(settled, in: &s, now: now, clock: clock, writes: writes, flash: self),
                    s.queue.queuedCount > 0 || !s.queue.isOpen)
        }
        deliver(outcome)
        if withdraw { armed?.write.disarm() }
        return armed
    }

    /// The bookkeeping after `NovaArmedFlash.fire()`: the command becomes the one in flight with
    /// its ack deadline, and the ATT transaction gets its timer. Harmless when already done (an
    /// ack that came first does it too) or when the fire did not happen.
    public func armedFlashFired(_ armed: NovaArmedFlash) {
        armed.write.settle()
        let now = clock.now
        let outcome = state.withLock { s -> Outcome in
            guard s.armed === armed else { return Outcome() }
            return Self.perform(s.settleArmed(now: now), in: &s, now: now, clock: clock, writes: writes, flash: self)
        }
        deliver(outcome)
    }

    /// Turns the light off.
    @discardableResult
    public func endFlash() async throws -> NovaAcknowledgement {
        try await run(.off)
    }

    /// A ping; the acknowledgement's `roundTrip` is the time from write to ack.
    public func ping() async throws -> NovaAcknowledgement {
        try await run(.ping)
    }

    /// Lit, as far as the host can tell: acknowledged, not turned off, safety timeout not passed.
    public var isLit: Bool {
        let now = clock.now
        return state.withLock { $0.queue.isLit(at: now) }
    }

    /// A command awaits its ack.
    public var isBusy: Bool { state.withLock { $0.queue.isBusy } }

    /// False once the link went down or the flash broke the protocol: it takes no more commands.
    public var isOpen: Bool { state.withLock { $0.queue.isOpen } }

    public var counters: NovaCommandQueue<DeviceClock.Instant>.Counters { state.withLock { $0.queue.counters } }

    /// Called when the flash breaks the protocol and the link should be dropped.
    public func setDisconnectHandler(_ handler: (@Sendable () -> Void)?) {
        state.withLock { $0.disconnectHandler = handler }
    }

    /// Light changes and trigger presses as they happen.
    public func events() -> AsyncStream<NovaFlashEvent> { broadcast.stream() }

    /// The link is gone: every pending and queued command fails with `.disconnected`.
    public func connectionLost() {
        let now = clock.now
        let (outcome, armed) = state.withLock { s in
            let settled = s.settleArmed(now: now)
            let armed = s.armed
            s.armed = nil
            // Its ticket fails with the rest; nobody will collect it.
            if let armed { s.waiters[armed.ticket]?.abandoned = true }
            return (Self.perform(settled + s.queue.disconnected(), in: &s, now: now, clock: clock, writes: writes, flash: self), armed)
        }
        writes.finish()
        armed?.write.disarm()
        deliver(outcome)
    }

    // MARK: V2 extras

    public func readDefaults() async throws -> NovaFlashDefaults {
        let bytes = try await gatt.read(handle: try handle(defaultsHandle, NovaProfile.v2FlashDefaults))
        return try bytes.withUnsafeBytes { raw in try NovaFlashDefaults(decoding: raw) }
    }

    public func writeDefaults(_ defaults: NovaFlashDefaults) async throws {
        try await gatt.write(defaults.encoded(), handle: try handle(defaultsHandle, NovaProfile.v2FlashDefaults))
    }

    public func readCounters() async throws -> NovaCounters {
        let bytes = try await gatt.read(handle: try handle(countersHandle, NovaProfile.v2Counters))
        return try bytes.withUnsafeBytes { raw in try NovaCounters(decoding: raw) }
    }

    public func batteryLevel() async throws -> BatteryLevel {
        let bytes = try await gatt.read(handle: try handle(batteryHandle, NovaProfile.batteryLevel))
        return try bytes.withUnsafeBytes { raw in try BatteryLevel(decoding: raw) }
    }

    private func handle(_ handle: AttributeHandle?, _ uuid: BluetoothUUID) throws -> AttributeHandle {
        guard let handle else { throw NovaSetupError.unsupported(model: model, characteristic: uuid) }
        return handle
    }

    // MARK: Receive path

    public func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) {
        let now = clock.now
        let outcome = state.withLock { s in
            // The ack of a FLASH fired on a trigger may come before the shot's bookkeeping.
            let settled = s.settleArmed(now: now)
            return Self.perform(settled + s.queue.responseReceived(value, now: now), in: &s, now: now, clock: clock, writes: writes, flash: self)
        }
        deliver(outcome, triggerTime: time)
    }

    // MARK: Internals

    private func run(_ command: NovaCommand) async throws -> NovaAcknowledgement {
        try await acknowledgement(of: enqueue(command))
    }

    /// Queues `command` and carries out what the queue says (the write, when the flash is idle).
    private func enqueue(_ command: NovaCommand) -> NovaCommandTicket {
        let now = clock.now
        let (ticket, outcome, armed) = state.withLock { s in
            let settled = s.settleArmed(now: now)
            let (ticket, actions) = s.queue.enqueue(command, now: now)
            s.waiters[ticket] = Waiter()
            s.unwritten.append(ticket)
            return (ticket, Self.perform(settled + actions, in: &s, now: now, clock: clock, writes: writes, flash: self), s.armed)
        }
        deliver(outcome)
        // A command made now goes before one armed for a trigger that has not come.
        armed?.write.disarm()
        return ticket
    }

    /// Ends an armed FLASH that was withdrawn unsent (called by its write, once).
    private func armedWithdrawn(_ ticket: NovaCommandTicket) {
        let now = clock.now
        let outcome = state.withLock { s -> Outcome in
            guard let armed = s.armed, armed.ticket == ticket else { return Outcome() }
            return Self.perform(s.settleArmed(now: now), in: &s, now: now, clock: clock, writes: writes, flash: self)
        }
        deliver(outcome)
    }

    private struct Outcome {
        var resumes: [(CheckedContinuation<NovaAcknowledgement, any Error>, Result<NovaAcknowledgement, NovaCommandFailure>)] = []
        var events: [NovaFlashEvent] = []
        var disconnectHandler: (@Sendable () -> Void)?
    }

    /// Carries out the queue's actions under the lock, in order; what calls out of this object
    /// (continuations, events, the disconnect handler) is returned and done after the lock.
    private static func perform(
        _ actions: [NovaCommandQueue<DeviceClock.Instant>.Action], in s: inout State, now: DeviceClock.Instant,
        clock: DeviceClock, writes: AsyncStream<[UInt8]>.Continuation, flash: NovaFlash
    ) -> Outcome {
        var outcome = Outcome()
        for action in actions {
            switch action {
            case .write(let bytes):
                if !s.unwritten.isEmpty {
                    let ticket = s.unwritten.removeFirst()
                    s.waiters[ticket]?.written = now
                }
                writes.yield(bytes)
            case .startTimer(let deadline):
                s.timer?.cancel()
                s.timer = Task { [weak flash] in
                    do { try await clock.sleep(until: deadline) } catch { return }
                    flash?.timerFired()
                }
            case .cancelTimer:
                s.timer?.cancel()
                s.timer = nil
            case .complete(let ticket, let result):
                s.unwritten.removeAll { $0 == ticket }
                guard var waiter = s.waiters.removeValue(forKey: ticket) else { continue }
                let ended: Result<NovaAcknowledgement, NovaCommandFailure> = switch result {
                case .acknowledged: .success(NovaAcknowledgement(written: waiter.written ?? now, acknowledged: now))
                case .failed(let failure): .failure(failure)
                }
                if let continuation = waiter.continuation {
                    outcome.resumes.append((continuation, ended))
                } else if !waiter.abandoned {
                    waiter.result = ended
                    s.waiters[ticket] = waiter
                }
            case .disconnect:
                outcome.disconnectHandler = s.disconnectHandler
                outcome.events.append(.protocolViolation)
            case .lightChanged(let isLit):
                outcome.events.append(.light(isLit: isLit))
            case .remoteTrigger(let pressed):
                outcome.events.append(.trigger(pressed: pressed, at: HostTime(nanoseconds: 0)))
            }
        }
        return outcome
    }

    private func deliver(_ outcome: Outcome, triggerTime: HostTime? = nil) {
        for (continuation, result) in outcome.resumes {
            continuation.resume(with: result.mapError { $0 as any Error })
        }
        for var event in outcome.events {
            if case .trigger(let pressed, _) = event, let triggerTime { event = .trigger(pressed: pressed, at: triggerTime) }
            broadcast.yield(event)
        }
        outcome.disconnectHandler?()
    }

    private func timerFired() {
        let now = clock.now
        let outcome = state.withLock { s in
            s.timer = nil
            let settled = s.settleArmed(now: now)
            return Self.perform(settled + s.queue.timerFired(now: now), in: &s, now: now, clock: clock, writes: writes, flash: self)
        }
        deliver(outcome)
    }
}

/// A command the flash acknowledged: when the request was handed to the link and when the ack
/// arrived, on the flash's clock.
public struct NovaAcknowledgement: Sendable, Hashable {
    public var written: DeviceClock.Instant
    public var acknowledged: DeviceClock.Instant
    public var roundTrip: Duration { written.duration(to: acknowledged) }
}

/// `acknowledgement(of:)` was given a ticket that `enqueueFlash` did not return, or one already
/// collected.
public struct NovaTicketError: Error, Sendable, Hashable, CustomStringConvertible {
    public var ticket: NovaCommandTicket
    public init(ticket: NovaCommandTicket) { self.ticket = ticket }
    public var description: String { "no command awaits collection under \(ticket)" }
}

/// What a connected flash reports on its own.
public enum NovaFlashEvent: Sendable, Hashable {
    /// `isLit` changed (a flash acknowledged, OFF, the safety timeout passed, a failure).
    case light(isLit: Bool)
    /// V2: the flash's own button, a remote shutter; `at` is when its bytes were read.
    case trigger(pressed: Bool, at: HostTime)
    /// The flash broke the protocol; every command failed and the link is to be dropped.
    case protocolViolation
}

/// Why a peer could not be used as a Nova flash.
public enum NovaSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    case notANova(services: [BluetoothUUID])
    case missingCharacteristic(BluetoothUUID)
    case unsupported(model: NovaModel, characteristic: BluetoothUUID)

    public var description: String {
        switch self {
        case .notANova(let services):
            "the peer has no Nova service (\(NovaProfile.v1Service) or \(NovaProfile.v2Service)); it has \(services.map(\.description).joined(separator: ", "))"
        case .missingCharacteristic(let uuid):
            "the Nova service lacks characteristic \(uuid)"
        case .unsupported(let model, let uuid):
            "this Nova (\(model)) has no characteristic \(uuid)"
        }
    }
}
