import StrobeDevices
import StrobeHCI
import StrobeHost
import StrobeLights
import Synchronization

/// The camera side of a shot: capture one frame and return when it is done.
public typealias CameraCapture = @Sendable () async throws -> Void

/// What a photographer chooses once: the settings, how long to wait for the flashes'
/// acknowledgements, and what to do when they do not come.
public struct ShotPolicy: Sendable, Hashable {
    /// What a shot does when a flash has not acknowledged its FLASH by `ackDeadline`.
    public enum MissingAck: String, Sendable, Hashable, CaseIterable {
        /// Take the picture anyway (the moment matters more than the light).
        case captureWithoutFlash
        /// Do not take it (the light matters more).
        case abort
    }

    /// The light every FLASH command asks for (default `NovaFlashSettings.full`).
    public var settings: NovaFlashSettings
    /// How long a shot waits for each flash's acknowledgement before the camera captures
    /// (default 150 ms).
    public var ackDeadline: Duration
    /// Whether a shot with a missing acknowledgement is still taken (default: taken).
    public var onMissingAck: MissingAck

    /// Defaults: full light, a 150 ms acknowledgement deadline, capture without flash when one is
    /// missing.
    public init(settings: NovaFlashSettings = .full, ackDeadline: Duration = .milliseconds(150),
                onMissingAck: MissingAck = .captureWithoutFlash) {
        self.settings = settings
        self.ackDeadline = ackDeadline
        self.onMissingAck = onMissingAck
    }
}

/// Shutter press to lit flash to captured frame: on a trigger, begins the flash on every
/// connected flash at once, waits for each acknowledgement (up to the policy's deadline),
/// captures, and ends the flash, recording the time of every step.
///
/// Between shots every idle flash holds an armed FLASH (`NovaFlash.armFlash`): the trigger's
/// handler, on the transport's reader thread, claims the shot flag with one atomic exchange and
/// fires them, so the commands' bytes leave with no lock taken and nothing allocated. The rest
/// of the shot (acks, camera, OFF, the record, arming again) runs in a task afterwards. A flash
/// that is not armed (it connected since, or was busy with another command) gets its FLASH the
/// ordinary way, a few tasks later.
public final class ShutterSequencer: Sendable {
    /// The manager whose connected flashes every shot fires.
    public let flashes: NovaFlashManager
    /// What captures the frame once the flashes are lit.
    public let camera: CameraCapture
    /// The settings, acknowledgement deadline and missing-acknowledgement rule of every shot.
    public let policy: ShotPolicy
    /// Lights dimmed for each shot and restored after it.
    public let modellingLights: ModellingLights?
    private let clock: any Clock<Duration>
    /// Where the shot's tasks run: the virtual clock's scheduler in a virtual-time run, else anywhere.
    private let executor: (any TaskExecutor)?
    /// The time line of the transports' read stamps, so that every step of a record shares it.
    private let hostTime: @Sendable () -> HostTime
    private let shots = Atomic<Int>(0)
    /// The shot flag and the armed commands.
    private let armedFlashes = ArmedFlashes()

    private let published = AsyncBroadcast<ShotRecord>()
    /// Shots waiting for the arming that holds the shot flag to end.
    private let armingWaiters = Lock<[CheckedContinuation<Void, Never>]>([])
    private let preflashFailed = AsyncBroadcast<PreflashFailure>()
    /// Reads the armed commands every `keepWarm`; cancelled with the sequencer.
    private let warmer: Task<Void, Never>?

    /// `hostTime` stamps the steps of a shot; it is the monotonic clock that transports stamp
    /// read bytes with, or a simulated world's air time when that world runs in virtual time.
    ///
    /// `keepWarm`: every `keepWarm` of real time (whatever `clock` is; at least 10 µs), the
    /// sequencer reads what a trigger's fire reads of each armed command (its phase, its
    /// prepared packet, the flash's clock), changing nothing, so that a press after a long
    /// quiet finds those lines in cache. A trigger never waits for it. It costs a timer wakeup
    /// and a task job per period, for the sequencer's life. `nil` (or a duration not above
    /// zero) never reads. On the README's 2-core machine, the default took the grip's median
    /// from trigger to FLASH bytes from 5.4-7.3 µs to 3.5-5.2 µs, and its p99 from 10.2-10.9 to
    /// 7.8-10.0 µs.
    public init<C: Clock>(flashes: NovaFlashManager, camera: @escaping CameraCapture, policy: ShotPolicy = ShotPolicy(), clock: C,
                          hostTime: @escaping @Sendable () -> HostTime = { HostTime.now() }, modellingLights: ModellingLights? = nil,
                          keepWarm: Duration? = .milliseconds(2))
    where C.Duration == Duration {
        self.flashes = flashes
        self.modellingLights = modellingLights
        self.camera = camera
        self.policy = policy
        self.clock = clock
        executor = clock.taskExecutor
        self.hostTime = hostTime
        if let keepWarm, keepWarm > .zero {
            let period = max(keepWarm, .microseconds(10))
            warmer = Task { [armedFlashes] in
                // Real time: caches cool in real time, and a virtual clock's tests see no sleeper.
                while (try? await Task.sleep(for: period)) != nil {
                    armedFlashes.warm()
                }
            }
        } else {
            warmer = nil
        }
    }

    /// How many times the warmer has read an armed command.
    package var warmReads: Int { armedFlashes.warmReads }

    /// Whether arming holds the shot flag now.
    package var isArming: Bool { armedFlashes.isArming }

    /// A built-in camera for tests and demos: each capture takes `exposure`.
    public static func testCamera<C: Clock>(exposure: Duration, clock: C) -> CameraCapture where C.Duration == Duration {
        { try await clock.sleep(for: exposure) }
    }

    /// Every shot's record as it completes.
    public func records() -> AsyncStream<ShotRecord> { published.stream() }

    /// Each flash whose preflash failed at a half press of the grip or remote this sequencer
    /// follows (where no caller waits for `preflash()`'s answer), as it fails.
    public func preflashFailures() -> AsyncStream<PreflashFailure> { preflashFailed.stream() }

    /// A half press: the preflash, its failures published.
    private func halfPressed() async {
        for failure in await preflash() { preflashFailed.yield(PreflashFailure(address: failure.address, error: failure.error)) }
    }

    /// Fires on a grip's full press (its bytes' read time is the trigger time), and turns the
    /// preflash on at a half press. Arms the connected flashes for the first press before it
    /// returns. Presses the grip sent before this call are not followed: a grip may send as soon
    /// as it is subscribed, so to follow from its first notification, `arm()` and then attach it
    /// with ``gripEventHandler()`` (`Grip.attach(to:handler:)`).
    public func follow(_ grip: Grip) async {
        grip.setEventHandler(gripEventHandler())
        await arm()
    }

    /// Fires on a shutter remote's press of a usage mapped to the shutter (its report's read
    /// time is the trigger time), through the same armed path as the grip; a half-press usage
    /// turns the preflash on. Arms the connected flashes before it returns. As with a grip,
    /// presses before this call are not followed: ``remoteEventHandler()`` given to
    /// `ShutterRemote.attach(to:map:handler:)` follows from the first report.
    public func follow(_ remote: ShutterRemote) async {
        remote.setEventHandler(remoteEventHandler())
        await arm()
    }

    /// The grip event handler that fires this sequencer's shots, as `follow(_:)` sets it: a
    /// full press fires, a half press turns the preflash on. Runs on the receive path.
    public func gripEventHandler() -> Grip.EventHandler {
        let trigger = Trigger(self)
        return { [weak self, executor] occurrence in
            switch occurrence.event {
            case .shutterButtonDown: trigger.fire(receivedAt: occurrence.receivedAt)
            case .shutterButtonHalfDown: Task(executorPreference: executor) { await self?.halfPressed() }
            default: break
            }
        }
    }

    /// The shutter remote event handler that fires this sequencer's shots, as `follow(_:)` sets
    /// it: a press of the shutter usage fires, of the half-press usage turns the preflash on.
    public func remoteEventHandler() -> ShutterRemote.EventHandler {
        let trigger = Trigger(self)
        return { [weak self, executor] event in
            guard event.kind == .press else { return }
            switch event.role {
            case .shutter: trigger.fire(receivedAt: event.receivedAt)
            case .halfPress: Task(executorPreference: executor) { await self?.halfPressed() }
            case .other: break
            }
        }
    }

    /// The hot path a trigger takes on the receive path: the armed flag, then the armed
    /// commands' bytes out; the rest of the shot in a task. An object the event handler calls
    /// directly, not a closure the handler calls through: one indirect call and one thunk fewer
    /// on a path that runs cold between presses.
    private final class Trigger: Sendable {
        private let armed: ArmedFlashes
        private let hostTime: @Sendable () -> HostTime
        private let executor: (any TaskExecutor)?
        private weak let sequencer: ShutterSequencer?

        init(_ sequencer: ShutterSequencer) {
            armed = sequencer.armedFlashes
            hostTime = sequencer.hostTime
            executor = sequencer.executor
            self.sequencer = sequencer
        }

        func fire(receivedAt: HostTime) {
            guard armed.claim() else {
                Task(executorPreference: executor) { [weak sequencer] in _ = await sequencer?.shoot(triggeredAt: receivedAt) }
                return
            }
            armed.fire(issuedAt: hostTime())
            // Weak until the task runs: a sequencer gone by then only gives the flag back.
            Task(executorPreference: executor) { [weak sequencer, armed] in
                guard let sequencer else { return armed.release() }
                _ = await sequencer.completeShot(triggeredAt: receivedAt)
            }
        }
    }

    /// Arms every connected, idle flash that is not armed yet, so that the next trigger's FLASH
    /// commands leave from the trigger's own thread. Shots do this themselves when they end;
    /// call it after connecting flashes. Does nothing while a shot runs. A trigger meanwhile
    /// waits for it, and then shoots.
    public func arm() async {
        guard armedFlashes.claimForArming() else { return }
        await armLocked()
        // Released under the waiters' lock: a shot that saw the arming registers before this.
        let waiting = armingWaiters.withLock { waiters in
            armedFlashes.release()
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume() }
    }

    /// Returns once the arming that holds the shot flag now has ended; at once when none does.
    private func armingEnded() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = armingWaiters.withLock { waiters in
                guard armedFlashes.isArming else { return false }
                waiters.append(continuation)
                return true
            }
            if !waits { continuation.resume() }
        }
    }

    /// One shot. `triggeredAt` is when the trigger's bytes were read (now, when called from code).
    public func shoot(triggeredAt trigger: HostTime? = nil) async -> ShotRecord {
        let trigger = trigger ?? hostTime()
        var claimed = armedFlashes.claim()
        // Arming is no shot: a trigger meanwhile (a full press just after a half press's
        // preflash, say) shoots once it is done, its trigger time kept.
        while !claimed, armedFlashes.isArming {
            await armingEnded()
            claimed = armedFlashes.claim()
        }
        // One shot at a time: a trigger during a shot is reported, not queued behind it.
        guard claimed else {
            return publish(ShotRecord(shot: nextShotNumber(), outcome: .busy, triggerReceived: trigger.nanoseconds, flashes: []))
        }
        if Task.isCancelled {
            armedFlashes.release()
            return publish(ShotRecord(shot: nextShotNumber(), outcome: .cancelled, triggerReceived: trigger.nanoseconds, flashes: []))
        }
        armedFlashes.fire(issuedAt: hostTime())
        return await completeShot(triggeredAt: trigger)
    }

    private func nextShotNumber() -> Int {
        shots.add(1, ordering: .relaxed).newValue
    }

    /// The shot after its armed commands went out (with the shot flag held; released at the end).
    private func completeShot(triggeredAt trigger: HostTime) async -> ShotRecord {
        defer { armedFlashes.release() }
        var record = ShotRecord(shot: nextShotNumber(), outcome: .captured, triggerReceived: trigger.nanoseconds, flashes: [])
        // Armed commands that did not go out are withdrawn, so that nothing stays armed for a
        // flash that left the manager; their flashes get a FLASH the ordinary way below.
        for slot in armedFlashes.slots where !slot.armed.hasFired { slot.armed.disarm() }
        let fired = armedFlashes.slots.filter(\.armed.hasFired)
        let targets = flashes.flashes
        guard !targets.isEmpty else {
            armedFlashes.replaceSlots(with: [])
            record.outcome = .noFlash
            return publish(record)
        }

        // The ordinary FLASH commands first, then the bookkeeping of the armed ones that went
        // out; then each ack or the deadline, whichever first.
        let settings = policy.settings
        let deadline = policy.ackDeadline
        let clock = self.clock
        let hostTime = self.hostTime
        let firedSlots = targets.map { target in fired.first { $0.flash == ObjectIdentifier(target.flash) } }
        let commands = zip(targets, firedSlots).map { target, slot -> (issued: UInt64, ticket: NovaCommandTicket, armed: Bool) in
            guard let slot else { return (hostTime().nanoseconds, target.flash.enqueueFlash(settings), false) }
            return (slot.issuedAt.load(ordering: .relaxed), slot.armed.ticket, true)
        }
        for (target, slot) in zip(targets, firedSlots) {
            if let slot { target.flash.armedFlashFired(slot.armed) }
        }
        // After every FLASH is out: the replacement may wait for a warmer part-way through.
        armedFlashes.replaceSlots(with: [])
        // Only now, with every FLASH out, the modelling lights: they never delay a flash.
        let lights = modellingLights
        let lightsBefore = lights?.target.lights ?? []
        let dimIssued = lights == nil ? 0 : hostTime().nanoseconds
        let dim = lights.map { lights in Task(executorPreference: executor) { try await lights.shotChange() } }
        record.flashes = await withTaskGroup(of: (Int, FlashTiming).self) { group in
            for (index, target) in targets.enumerated() {
                let (issued, ticket, armed) = commands[index]
                group.addTask {
                    var timing = FlashTiming(address: target.address.description, commandIssued: issued, armed: armed)
                    do {
                        _ = try await withTimeout(deadline, clock: clock) { try await target.flash.acknowledgement(of: ticket) }
                        timing.acknowledged = hostTime().nanoseconds
                    } catch is OperationTimeout {
                        timing.failure = ShotError.ackDeadline(deadline).description
                    } catch {
                        timing.failure = "\(error)"
                    }
                    return (index, timing)
                }
            }
            var timings = [FlashTiming?](repeating: nil, count: targets.count)
            for await (index, timing) in group { timings[index] = timing }
            return timings.compactMap { $0 }
        }
        let allLit = record.flashes.allSatisfy { $0.acknowledged != nil }
        if !allLit {
            record.outcome = policy.onMissingAck == .abort ? .aborted : .capturedWithoutFlash
        }
        if let lights, let dim {
            var timing = ModellingLightsTiming(dimIssued: dimIssued, lightsDimmed: 0, lightsRestored: 0)
            do {
                let results = try await withTimeout(lights.deadline, clock: clock) { try await dim.value }
                timing.lightsDimmed = results.filter { $0.status == .ok }.count
                timing.dimmed = hostTime().nanoseconds
                if timing.lightsDimmed < results.count { timing.failure = "\(results.count - timing.lightsDimmed) light(s) did not dim" }
            } catch is OperationTimeout {
                timing.failure = "the lights did not dim within \(lights.deadline)"
            } catch {
                timing.failure = "the lights did not dim: \(error)"
            }
            record.modellingLights = timing
        }
        if record.outcome != .aborted {
            record.captureStart = hostTime().nanoseconds
            do {
                try await camera()
            } catch {
                record.outcome = .cameraFailed
            }
            record.captureEnd = hostTime().nanoseconds
        }
        // Off on every flash, lit or not: a late ack must not leave a light on.
        record.flashes = await withTaskGroup(of: (Int, FlashTiming).self) { group in
            for (index, target) in targets.enumerated() {
                let lit = record.flashes[index]
                group.addTask {
                    var timing = lit
                    timing.offIssued = hostTime().nanoseconds
                    do {
                        _ = try await target.flash.endFlash()
                        timing.offAcknowledged = hostTime().nanoseconds
                    } catch {
                        timing.offFailure = "\(error)"
                    }
                    return (index, timing)
                }
            }
            var timings = record.flashes
            for await (index, timing) in group { timings[index] = timing }
            return timings
        }
        if let lights, let dim {
            // The dim may still be on its way (past its deadline): the restore goes after it.
            // Its outcome is in the record already: the dim step above waited for it, or recorded
            // its deadline passing.
            _ = try? await dim.value
            record.modellingLights?.restoreIssued = hostTime().nanoseconds
            do {
                let results = try await lights.restore(lightsBefore)
                record.modellingLights?.lightsRestored = results.filter { $0.status == .ok }.count
                record.modellingLights?.restored = hostTime().nanoseconds
                if results.contains(where: { $0.status != .ok }), record.modellingLights?.failure == nil {
                    record.modellingLights?.failure = "\(results.filter { $0.status != .ok }.count) light(s) were not restored"
                }
            } catch {
                record.modellingLights?.failure = "the lights were not restored: \(error)"
            }
        }
        await armLocked()
        return publish(record)
    }

    /// Arms each connected flash that has no armed FLASH (with the shot flag held).
    private func armLocked() async {
        let settings = policy.settings
        var slots: [ArmedFlashes.Slot] = []
        let targets = flashes.flashes
        for target in targets {
            if let slot = armedFlashes.slot(for: target.flash), slot.armed.isArmed {
                slots.append(slot)
            } else if let armed = await target.flash.armFlash(settings) {
                slots.append(ArmedFlashes.Slot(flash: target.flash, armed: armed))
            }
        }
        // A flash that left the manager keeps nothing armed.
        let kept = Set(slots.map { ObjectIdentifier($0.armed) })
        for slot in armedFlashes.slots where !kept.contains(ObjectIdentifier(slot.armed)) { slot.armed.disarm() }
        armedFlashes.replaceSlots(with: slots)
    }

    /// A half press: the preflash (a dimmer light for focusing and framing) on every flash that
    /// stores one (Nova V2), with its stored settings. Flashes without it are left dark. Their
    /// armed FLASH gives way to it and is armed again after. Returns each flash whose preflash
    /// failed (its defaults could not be read, or it did not take the command), with why.
    @discardableResult
    public func preflash() async -> [(address: BluetoothAddress, error: NovaError)] {
        let failures = await withTaskGroup(of: (address: BluetoothAddress, error: NovaError)?.self) { group in
            for target in flashes.flashes where target.flash.model == .v2 {
                group.addTask {
                    do throws(NovaError) {
                        let defaults = try await target.flash.readDefaults()
                        _ = try await target.flash.beginFlash(defaults.preflash)
                        return nil
                    } catch {
                        return (target.address, error)
                    }
                }
            }
            var failures: [(address: BluetoothAddress, error: NovaError)] = []
            for await failure in group { if let failure { failures.append(failure) } }
            return failures
        }
        await arm()
        return failures
    }

    deinit {
        warmer?.cancel()
        // Nothing can fire them any more: give the flashes back.
        for slot in armedFlashes.slots { slot.armed.disarm() }
    }

    private func publish(_ record: ShotRecord) -> ShotRecord {
        published.yield(record)
        return record
    }
}

/// Why a flash's part of a shot failed, as `FlashTiming.failure` states it.
public enum ShotError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The flash did not acknowledge its FLASH within the policy's deadline.
    case ackDeadline(Duration)

    /// What went wrong, as a sentence for a user.
    public var description: String {
        switch self {
        case .ackDeadline(let deadline): "no acknowledgement within \(deadline)"
        }
    }
}
