import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// One connected Nova flash, V1 or V2 (chosen by the service it exposes), driven with the
/// reference SDK's discipline: one command in flight, the rest queued, a 2 s ack timeout, and
/// a protocol violation (unparsable response, ack for another request) failing everything and
/// asking for a disconnect. `NovaCommandQueue` holds the rules; this class does the I/O: GATT
/// writes in order, notifications in, one timer.
public final class NovaFlash: ATTValueHandler, Sendable {
    /// The protocol the flash speaks, chosen by its service (V2's `EFF0` when it has both).
    public let model: NovaModel
    /// The GATT client of the flash's link.
    public let gatt: GATTClient
    package let requestHandle: AttributeHandle
    let defaultsHandle: AttributeHandle?
    let countersHandle: AttributeHandle?
    let batteryHandle: AttributeHandle?
    private let clock: DeviceClock
    private let writes: AsyncStream<[UInt8]>.Continuation
    private let state: Lock<State>
    /// The queue's one timer (ack deadlines, the light's safety timeout).
    private let timer: DeadlineTimer
    private let broadcast = AsyncBroadcast<NovaFlashEvent>()

    private typealias Action = NovaCommandQueue<DeviceClock.Instant>.Action

    private struct State {
        var queue: NovaCommandQueue<DeviceClock.Instant>
        var pending: [NovaCommandTicket: Pending] = [:]
        /// Tickets in the order they were queued and not yet written: the queue writes FIFO.
        var unwritten: [NovaCommandTicket] = []
        var disconnectHandler: (@Sendable () -> Void)?
        /// A FLASH readied for a trigger (`armFlash`); the queue holds its request id.
        var armed: NovaArmedFlash?

        /// An armed FLASH that went out becomes the command in flight, stamped with its fire time;
        /// one that could not go out is withdrawn. Whoever touches the state next does this, so
        /// an ack can never find the queue unaware of its request.
        mutating func settleArmed(now: DeviceClock.Instant) -> [Action] {
            guard let armed, !armed.isArmed else { return [] }
            self.armed = nil
            if armed.hasFired {
                pending[armed.ticket]?.written = armed.firedInstant
                return queue.armedWritten(now: armed.firedInstant)
            }
            pending[armed.ticket]?.abandoned = true
            return queue.disarm(now: now)
        }
    }

    /// A queued command's outcome, kept for whoever collects its ticket (once).
    private struct Pending {
        let waiter = Waiter<NovaAcknowledgement>()
        var written: DeviceClock.Instant?
        /// `acknowledgement(of:)` took the waiter: the entry goes when the command ends.
        var collected = false
        /// Nobody will collect it (an armed FLASH withdrawn, the link gone).
        var abandoned = false
        /// Ended before anyone collected it: the waiter keeps the outcome.
        var ended = false
    }

    /// Finds the Nova service on a connected peer, subscribes to its response characteristic and
    /// returns the flash, ready for commands.
    public static func attach<C: Clock>(
        to gatt: GATTClient, clock: C, ackTimeout: Duration = .seconds(2)
    ) async throws(NovaError) -> NovaFlash where C.Duration == Duration {
        try await filing(NovaError.init(filing:)) { try await attaching(to: gatt, clock: clock, ackTimeout: ackTimeout) }
    }

    private static func attaching<C: Clock>(
        to gatt: GATTClient, clock: C, ackTimeout: Duration
    ) async throws -> NovaFlash where C.Duration == Duration {
        let services = try await gatt.discoverPrimaryServices()
        let v2 = NovaProfile.v2Service
        let v1 = NovaProfile.v1Service
        guard let service = services.first(where: { $0.uuid == v2 }) ?? services.first(where: { $0.uuid == v1 }) else {
            throw NovaError.notANova(services: services.map(\.uuid))
        }
        let model: NovaModel = service.uuid == v2 ? .v2 : .v1
        let characteristics = try await gatt.discoverCharacteristics(of: service)
        func find(_ uuid: BluetoothUUID) -> GATTCharacteristic? {
            let target = uuid
            return characteristics.first { $0.uuid == target }
        }
        guard let request = find(model.requestCharacteristic) else {
            throw NovaError.missingCharacteristic(model.requestCharacteristic)
        }
        guard let response = find(model.responseCharacteristic) else {
            throw NovaError.missingCharacteristic(model.responseCharacteristic)
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
        state = Lock(State(queue: NovaCommandQueue(model: model, ackTimeout: ackTimeout)))
        timer = DeadlineTimer(clock: clock.elapsed)
        // One writer, so that requests reach the flash in queue order; on the host's loop, so
        // that a queued request goes out while the app's pool is busy.
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        writes = continuation
        Task(executorPreference: gatt.bearer.loop?.executor) { [gatt, requestHandle, weak self] in
            for await bytes in stream {
                do throws(StrobeError) {
                    try await gatt.write(bytes, handle: requestHandle)
                } catch {
                    self?.writeFailed(bytes, error)
                }
            }
        }
        // The timer calls back into this flash, without keeping it alive.
        timer.onFire { [weak self] _ in self?.timerFired() }
    }

    deinit {
        writes.finish()
        timer.stop()
        let armed = state.withLock { $0.armed }
        // An armed write would otherwise keep the bearer's slot and a controller buffer.
        armed?.write.disarm()
    }

    // MARK: Commands

    /// Lights the flash and returns once it has acknowledged (or throws `NovaError.command`).
    /// Settings with nothing to show go out as OFF.
    @discardableResult
    public func beginFlash(_ settings: NovaFlashSettings) async throws(NovaError) -> NovaAcknowledgement {
        try await run(.flash(settings))
    }

    /// Queues a FLASH without suspending: when the flash is idle its request is handed to the
    /// writer before this returns, so a shot's commands to several flashes leave together, with
    /// no task in between. Collect the outcome with `acknowledgement(of:)`.
    package func enqueueFlash(_ settings: NovaFlashSettings) -> NovaCommandTicket {
        enqueue(.flash(settings))
    }

    /// Waits for the end of a command queued by `enqueueFlash`: its ack, or why it failed. Each
    /// ticket is collected once; cancelling the wait leaves the command queued (the flash may
    /// already have it) and drops its outcome.
    package func acknowledgement(of ticket: NovaCommandTicket) async throws -> NovaAcknowledgement {
        let waiter = state.withLock { s -> Waiter<NovaAcknowledgement>? in
            guard let entry = s.pending[ticket], !entry.collected, !entry.abandoned else { return nil }
            if entry.ended {
                s.pending[ticket] = nil
            } else {
                s.pending[ticket]?.collected = true
            }
            return entry.waiter
        }
        guard let waiter else { throw NovaTicketError(ticket: ticket) }
        // A cancelled wait ends the waiter; the command's end later finds nobody to tell.
        return try await waiter.wait()
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
            s.pending[reserved.ticket] = Pending()
            return reserved
        }
        guard let (ticket, bytes) = reserved else { return nil }
        let write = try? await gatt.armWrite(bytes, handle: requestHandle) { [weak self] in self?.armedWithdrawn(ticket) }
        let armed = write.map { NovaArmedFlash(ticket: ticket, write: $0, clock: clock) }
        let withdraw = transition { s, now in
            guard let armed else {
                // No write could be armed: give the queue back its turn.
                s.pending[ticket]?.abandoned = true
                return (s.queue.disarm(now: now), false)
            }
            // Already withdrawn (a request came for the bearer meanwhile): settled right after
            // this step, and the queue moves on. Commands queued while the write was being
            // armed go first.
            s.armed = armed
            return ([], s.queue.queuedCount > 0 || !s.queue.isOpen)
        }
        if withdraw { armed?.write.disarm() }
        return armed
    }

    /// The bookkeeping after `NovaArmedFlash.fire()`: the command becomes the one in flight with
    /// its ack deadline, and the ATT transaction gets its timer. Harmless when already done (an
    /// ack that came first does it too) or when the fire did not happen.
    public func armedFlashFired(_ armed: NovaArmedFlash) {
        armed.write.settle()
        transition()
    }

    /// Turns the light off.
    @discardableResult
    public func endFlash() async throws(NovaError) -> NovaAcknowledgement {
        try await run(.off)
    }

    /// A ping; the acknowledgement's `roundTrip` is the time from write to ack.
    public func ping() async throws(NovaError) -> NovaAcknowledgement {
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

    package var counters: NovaCommandQueue<DeviceClock.Instant>.Counters { state.withLock { $0.queue.counters } }

    /// Called when the flash breaks the protocol and the link should be dropped.
    public func setDisconnectHandler(_ handler: (@Sendable () -> Void)?) {
        state.withLock { $0.disconnectHandler = handler }
    }

    /// Light changes and trigger presses as they happen.
    public func events() -> AsyncStream<NovaFlashEvent> { broadcast.stream() }

    /// The link is gone: every pending and queued command fails with `.disconnected`.
    public func connectionLost() {
        let armed = transition { s, _ in
            let armed = s.armed
            s.armed = nil
            // Its ticket fails with the rest; nobody will collect it.
            if let armed { s.pending[armed.ticket]?.abandoned = true }
            return (s.queue.disconnected(), armed)
        }
        writes.finish()
        armed?.write.disarm()
    }

    // MARK: V2 extras

    /// Reads the V2 flash defaults characteristic (`EFF3`). Throws `NovaError.unsupported` when
    /// the flash has none (every V1 flash), `.malformedValue(.unexpectedLength)` when the value is
    /// not 8 bytes, or `.link` with the GATT read's error.
    public func readDefaults() async throws(NovaError) -> NovaFlashDefaults {
        try await filing(NovaError.init(filing:)) {
            let bytes = try await gatt.read(handle: try handle(defaultsHandle, NovaProfile.v2FlashDefaults))
            return try bytes.withUnsafeBytes { raw in try NovaFlashDefaults(decoding: raw) }
        }
    }

    /// Writes the V2 flash defaults characteristic (`EFF3`) with a Write Request. Throws
    /// `NovaError.unsupported` when the flash has none (every V1 flash), or `.link` with the GATT
    /// write's error.
    public func writeDefaults(_ defaults: NovaFlashDefaults) async throws(NovaError) {
        try await filing(NovaError.init(filing:)) {
            try await gatt.write(defaults.encoded(), handle: try handle(defaultsHandle, NovaProfile.v2FlashDefaults))
        }
    }

    /// Reads the V2 counters characteristic (`EFF4`). Throws `NovaError.unsupported` when the
    /// flash has none (every V1 flash), `.malformedValue(.notWholeItems)` when the length is not a
    /// multiple of 4, or `.link` with the GATT read's error.
    public func readCounters() async throws(NovaError) -> NovaCounters {
        try await filing(NovaError.init(filing:)) {
            let bytes = try await gatt.read(handle: try handle(countersHandle, NovaProfile.v2Counters))
            return try bytes.withUnsafeBytes { raw in try NovaCounters(decoding: raw) }
        }
    }

    /// Reads the Battery Level (`2A19`) of a V2 flash. Throws `NovaError.unsupported` for a V1
    /// flash or one without the Battery service, `.malformedBatteryLevel` for a malformed value, or
    /// `.link` with the GATT read's error.
    public func batteryLevel() async throws(NovaError) -> BatteryLevel {
        try await filing(NovaError.init(filing:)) {
            let bytes = try await gatt.read(handle: try handle(batteryHandle, NovaProfile.batteryLevel))
            return try bytes.withUnsafeBytes { raw in try BatteryLevel(decoding: raw) }
        }
    }

    private func handle(_ handle: AttributeHandle?, _ uuid: BluetoothUUID) throws -> AttributeHandle {
        guard let handle else { throw NovaError.unsupported(model: model, characteristic: uuid) }
        return handle
    }

    // MARK: Receive path

    /// Handles a notification of the response characteristic on the receive path: an ack completes
    /// the pending command, a V2 trigger becomes a `NovaFlashEvent.trigger`, and an unparsable or
    /// unexpected response is a protocol violation that fails every command.
    public func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) {
        // The ack of a FLASH fired on a trigger may come before the shot's bookkeeping: the
        // transition settles it first.
        transition(triggerTime: time) { s, now in (s.queue.responseReceived(value, now: now), ()) }
    }

    // MARK: Internals

    private func run(_ command: NovaCommand) async throws(NovaError) -> NovaAcknowledgement {
        let ticket = enqueue(command)
        return try await filing(NovaError.init(filing:)) { try await acknowledgement(of: ticket) }
    }

    /// Queues `command` and carries out what the queue says (the write, when the flash is idle).
    private func enqueue(_ command: NovaCommand) -> NovaCommandTicket {
        let (ticket, armed) = transition { s, now in
            let (ticket, actions) = s.queue.enqueue(command, now: now)
            s.pending[ticket] = Pending()
            s.unwritten.append(ticket)
            return (actions, (ticket, s.armed))
        }
        // A command made now goes before one armed for a trigger that has not come.
        armed?.write.disarm()
        return ticket
    }

    /// Ends an armed FLASH that was withdrawn unsent (called by its write, once).
    private func armedWithdrawn(_ ticket: NovaCommandTicket) {
        transition()
    }

    /// Every change of this flash's state goes through here: the armed FLASH is settled (fired
    /// or withdrawn, as whoever touches the state next finds it) before and after `step`, whose
    /// actions are carried out under the lock; what calls out of this object (waiters, events,
    /// the disconnect handler) happens after it.
    @discardableResult
    private func transition<R>(triggerTime: HostTime? = nil, _ step: (inout State, DeviceClock.Instant) -> ([Action], R)) -> R {
        let now = clock.now
        let (outcome, result) = state.withLock { s in
            let settledBefore = s.settleArmed(now: now)
            let (actions, result) = step(&s, now)
            let settledAfter = s.settleArmed(now: now)
            return (perform(settledBefore + actions + settledAfter, in: &s, now: now), result)
        }
        deliver(outcome, triggerTime: triggerTime)
        return result
    }

    /// A transition with no step of its own: the armed FLASH settled.
    private func transition() {
        transition { _, _ in ([], ()) }
    }

    private struct Outcome {
        var resolved: [(Waiter<NovaAcknowledgement>, Result<NovaAcknowledgement, any Error>)] = []
        var events: [NovaFlashEvent] = []
        var disconnectHandler: (@Sendable () -> Void)?
    }

    /// Carries out the queue's actions under the lock, in order; what calls out of this object
    /// is returned, to be done after the lock.
    private func perform(_ actions: [Action], in s: inout State, now: DeviceClock.Instant) -> Outcome {
        var outcome = Outcome()
        for action in actions {
            switch action {
            case .write(let bytes):
                if !s.unwritten.isEmpty {
                    let ticket = s.unwritten.removeFirst()
                    s.pending[ticket]?.written = now
                }
                writes.yield(bytes)
            case .startTimer(let deadline):
                timer.schedule(deadline.offset)
            case .cancelTimer:
                timer.schedule(nil)
            case .complete(let ticket, let result):
                s.unwritten.removeAll { $0 == ticket }
                guard var entry = s.pending[ticket] else { continue }
                let ended: Result<NovaAcknowledgement, any Error> = switch result {
                case .acknowledged: .success(NovaAcknowledgement(written: entry.written ?? now, acknowledged: now))
                case .failed(let failure): .failure(failure)
                }
                outcome.resolved.append((entry.waiter, ended))
                if entry.collected || entry.abandoned {
                    s.pending[ticket] = nil
                } else {
                    entry.ended = true
                    s.pending[ticket] = entry
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

    private func deliver(_ outcome: Outcome, triggerTime: HostTime?) {
        for (waiter, result) in outcome.resolved {
            waiter.resolve(result)
        }
        for var event in outcome.events {
            if case .trigger(let pressed, _) = event, let triggerTime { event = .trigger(pressed: pressed, at: triggerTime) }
            broadcast.yield(event)
        }
        outcome.disconnectHandler?()
    }

    private func timerFired() {
        transition { s, now in (s.queue.timerFired(now: now), ()) }
    }

    private func writeFailed(_ bytes: [UInt8], _ error: StrobeError) {
        // The link went down (its bearer closes before the disconnect is reported): the
        // disconnect fails every command as `.disconnected`, this one included.
        if case .bearer(.closed) = error { return }
        transition { s, now in (s.queue.writeFailed(bytes, reason: "\(error)", now: now), ()) }
    }
}

/// A command the flash acknowledged: when the request was handed to the link and when the ack
/// arrived, on the flash's clock.
public struct NovaAcknowledgement: Sendable, Hashable {
    package var written: DeviceClock.Instant
    package var acknowledged: DeviceClock.Instant
    /// The time from handing the request to the link (or firing an armed FLASH) to the ack's arrival.
    public var roundTrip: Duration { written.duration(to: acknowledged) }
}

/// `acknowledgement(of:)` was given a ticket that `enqueueFlash` did not return, or one already
/// collected.
package struct NovaTicketError: Error, Sendable, Hashable, CustomStringConvertible {
    package var ticket: NovaCommandTicket
    package init(ticket: NovaCommandTicket) { self.ticket = ticket }
    package var description: String { "no command awaits collection under \(ticket)" }
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
