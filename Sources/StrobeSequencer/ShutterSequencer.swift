import StrobeDevices
import StrobeHCI
import StrobeHost
import Synchronization

/// The camera side of a shot: capture one frame and return when it is done.
public typealias CameraCapture = @Sendable () async throws -> Void

/// What a photographer chooses once: the settings, how long to wait for the flashes'
/// acknowledgements, and what to do when they do not come.
public struct ShotPolicy: Sendable, Hashable {
    public enum MissingAck: String, Sendable, Hashable, CaseIterable {
        /// Take the picture anyway (the moment matters more than the light).
        case captureWithoutFlash
        /// Do not take it (the light matters more).
        case abort
    }

    public var settings: NovaFlashSettings
    public var ackDeadline: Duration
    public var onMissingAck: MissingAck

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
public final class ShutterSequencer: Sendable {
    public let flashes: NovaFlashManager
    public let camera: CameraCapture
    public let policy: ShotPolicy
    private let clock: any Clock<Duration>
    /// The time line of the transports' read stamps, so that every step of a record shares it.
    private let hostTime: @Sendable () -> HostTime
    private let state = Mutex(State())

    private struct State {
        var shots = 0
        var inShot = false
    }

    private let published = AsyncBroadcast<ShotRecord>()

    /// `hostTime` stamps the steps of a shot; it is the monotonic clock that transports stamp
    /// read bytes with, or a simulated world's air time when that world runs in virtual time.
    public init<C: Clock>(flashes: NovaFlashManager, camera: @escaping CameraCapture, policy: ShotPolicy = ShotPolicy(), clock: C,
                          hostTime: @escaping @Sendable () -> HostTime = { HostTime.now() })
    where C.Duration == Duration {
        self.flashes = flashes
        self.camera = camera
        self.policy = policy
        self.clock = clock
        self.hostTime = hostTime
    }

    /// A built-in camera for tests and demos: each capture takes `exposure`.
    public static func testCamera<C: Clock>(exposure: Duration, clock: C) -> CameraCapture where C.Duration == Duration {
        { try await clock.sleep(for: exposure) }
    }

    /// Every shot's record as it completes.
    public func records() -> AsyncStream<ShotRecord> { published.stream() }

    /// Fires on a grip's full press (its bytes' read time is the trigger time), and turns the
    /// preflash on at a half press.
    public func follow(_ grip: Grip) {
        grip.setEventHandler { [weak self] occurrence in
            guard let self else { return }
            switch occurrence.event {
            case .shutterButtonDown:
                Task { _ = await self.shoot(triggeredAt: occurrence.receivedAt) }
            case .shutterButtonHalfDown:
                Task { await self.preflash() }
            default:
                break
            }
        }
    }

    /// One shot. `triggeredAt` is when the trigger's bytes were read (now, when called from code).
    public func shoot(triggeredAt trigger: HostTime? = nil) async -> ShotRecord {
        let trigger = trigger ?? hostTime()
        let number = state.withLock { s -> Int in
            s.shots += 1
            return s.shots
        }
        let targets = flashes.flashes
        var record = ShotRecord(shot: number, outcome: .captured, triggerReceived: trigger.nanoseconds, flashes: [])
        // One shot at a time: a trigger during a shot is reported, not queued behind it.
        let started = state.withLock { s -> Bool in
            guard !s.inShot else { return false }
            s.inShot = true
            return true
        }
        guard started else {
            record.outcome = .busy
            return publish(record)
        }
        defer { state.withLock { $0.inShot = false } }
        guard !targets.isEmpty else {
            record.outcome = .noFlash
            return publish(record)
        }
        if Task.isCancelled {
            record.outcome = .cancelled
            return publish(record)
        }

        // Begin on every flash at once, from this task (no hop before the bytes leave); then each
        // ack or the deadline, whichever first.
        let settings = policy.settings
        let deadline = policy.ackDeadline
        let clock = self.clock
        let hostTime = self.hostTime
        let begun = targets.map { target in (issued: hostTime().nanoseconds, ticket: target.flash.enqueueFlash(settings)) }
        record.flashes = await withTaskGroup(of: (Int, FlashTiming).self) { group in
            for (index, target) in targets.enumerated() {
                let (issued, ticket) = begun[index]
                group.addTask {
                    var timing = FlashTiming(address: target.address.description, commandIssued: issued)
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
                    if (try? await target.flash.endFlash()) != nil { timing.offAcknowledged = hostTime().nanoseconds }
                    return (index, timing)
                }
            }
            var timings = record.flashes
            for await (index, timing) in group { timings[index] = timing }
            return timings
        }
        return publish(record)
    }

    /// A half press: the preflash (a dimmer light for focusing and framing) on every flash that
    /// stores one (Nova V2), with its stored settings. Flashes without it are left dark.
    public func preflash() async {
        await withTaskGroup(of: Void.self) { group in
            for target in flashes.flashes where target.flash.model == .v2 {
                group.addTask {
                    guard let defaults = try? await target.flash.readDefaults() else { return }
                    _ = try? await target.flash.beginFlash(defaults.preflash)
                }
            }
        }
    }

    private func publish(_ record: ShotRecord) -> ShotRecord {
        published.yield(record)
        return record
    }
}

public enum ShotError: Error, Sendable, Hashable, CustomStringConvertible {
    case ackDeadline(Duration)

    public var description: String {
        switch self {
        case .ackDeadline(let deadline): "no acknowledgement within \(deadline)"
        }
    }
}
