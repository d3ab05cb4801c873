import StrobeDevices
import StrobeHCI
import StrobeHost
import StrobeSim
import StrobeBase
import Synchronization
import Testing

import StrobeLights

import StrobeSequencer

/// The sequencer on the simulated world in real time: real Nova V1 and V2 peers on their own
/// stacks. Shots checked to the byte and the microsecond run in virtual time (`ScriptedShotTests`).
@Suite(.timeLimit(.minutes(1))) struct ShutterSequencerTests {
    struct Rig {
        let world: SimWorld
        let controller: HCIController
        let central: Central
        let manager: NovaFlashManager

        func close() async throws {
            try await manager.disable()
            controller.close()
            world.stop()
        }
    }

    static func rig(devices kinds: Set<SimulatedDeviceDescription.Kind> = [.nova1, .nova2], clock: VirtualClock,
                    flashesMisbehave misbehaviour: SimulatedDeviceDescription.NovaMisbehaviour? = nil) async throws -> Rig {
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { kinds.contains($0.kind) }
        for index in scenario.devices.indices where [.nova1, .nova2].contains(scenario.devices[index].kind) {
            scenario.devices[index].misbehaviour = misbehaviour
        }
        let world = SimWorld(scenario: scenario, clock: clock)
        try await world.start()
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        try await controller.open()
        let central = Central(controller: controller, clock: clock)
        let manager = NovaFlashManager(central: central, clock: clock,
                                       configuration: .init(scanBurst: .seconds(1), ackTimeout: .seconds(10)))
        return Rig(world: world, controller: controller, central: central, manager: manager)
    }

    final class Captures: Sendable {
        let count = Lock(0)
    }

    @Test func aMissedAckDeadlineAbortsWhenThePolicySaysSo() async throws {
        try await VirtualTimeDriver.run { try await Self.aMissedAckDeadlineFollowsThePolicy(.abort, expected: .aborted, captured: 0, $0) }
    }

    @Test func aMissedAckDeadlineCapturesWithoutFlashWhenThePolicySaysSo() async throws {
        try await VirtualTimeDriver.run {
            try await Self.aMissedAckDeadlineFollowsThePolicy(.captureWithoutFlash, expected: .capturedWithoutFlash, captured: 1, $0)
        }
    }

    static func aMissedAckDeadlineFollowsThePolicy(_ policy: ShotPolicy.MissingAck, expected: ShotOutcome, captured: Int,
                                                   _ clock: VirtualClock) async throws {
        let rig = try await Self.rig(devices: [.nova2], clock: clock)
        try await rig.manager.connect(.all)
        let captures = Captures()
        // No flash answers within a microsecond.
        let sequencer = ShutterSequencer(flashes: rig.manager, camera: { captures.count.withLock { $0 += 1 } },
                                         policy: ShotPolicy(ackDeadline: .microseconds(1), onMissingAck: policy), clock: clock)
        let record = await sequencer.shoot()
        #expect(record.outcome == expected)
        #expect(captures.count.withLock { $0 } == captured)
        #expect(record.flashes.first?.failure?.contains("no acknowledgement") == true)
        // Off is still sent, so a late light does not stay on.
        #expect(record.flashes.first?.offAcknowledged != nil)
        try await rig.close()
    }

    @Test func withNoFlashTheShotSaysSo() async throws {
        try await VirtualTimeDriver.run(Self.withNoFlashTheShotSaysSo)
    }

    static func withNoFlashTheShotSaysSo(_ clock: VirtualClock) async throws {
        let rig = try await Self.rig(devices: [], clock: clock)
        let sequencer = ShutterSequencer(flashes: rig.manager, camera: {}, clock: clock)
        #expect(await sequencer.shoot().outcome == .noFlash)
        try await rig.close()
    }

    @Test func aGripsFullPressTriggersAShot() async throws {
        try await VirtualTimeDriver.run(Self.aGripsFullPressTriggersAShot)
    }

    static func aGripsFullPressTriggersAShot(_ clock: VirtualClock) async throws {
        let rig = try await Self.rig(devices: [.nova2, .grip], clock: clock)
        try await rig.manager.connect(.named("Nova2"))
        let sequencer = ShutterSequencer(flashes: rig.manager, camera: {}, policy: ShotPolicy(ackDeadline: .seconds(5)), clock: clock)
        var records = sequencer.records().makeAsyncIterator()
        let gripConnection = try await rig.central.connect(name: "Grip-S1")
        let grip = try await Grip.attach(to: gripConnection.gatt)
        await sequencer.follow(grip)
        // The standard grip script: half press, full press, release. One shot, at the full press.
        let record = try #require(await records.next())
        #expect(record.outcome == .captured)
        #expect(record.shot == 1)
        try await rig.close()
    }
}

extension ShutterSequencerTests {
    @Test func aTriggerDuringAShotIsReportedBusy() async throws {
        try await VirtualTimeDriver.run(Self.aTriggerDuringAShotIsReportedBusy)
    }

    static func aTriggerDuringAShotIsReportedBusy(_ clock: VirtualClock) async throws {
        let rig = try await Self.rig(devices: [.nova2], clock: clock)
        try await rig.manager.connect(.all)
        let (release, releaser) = AsyncStream.makeStream(of: Void.self)
        let (exposing, exposingSignal) = AsyncStream.makeStream(of: Void.self)
        // A camera that holds its exposure until the test lets it go.
        let sequencer = ShutterSequencer(flashes: rig.manager, camera: {
            exposingSignal.yield()
            for await _ in release { break }
        }, policy: ShotPolicy(ackDeadline: .seconds(5)), clock: clock)
        let first = Task(executorPreference: clock.executor) { await sequencer.shoot() }
        var iterator = exposing.makeAsyncIterator()
        _ = await iterator.next()
        #expect(await sequencer.shoot().outcome == .busy)
        releaser.yield()
        #expect(await first.value.outcome == .captured)
        try await rig.close()
    }

    /// Arming is no shot: a trigger while it runs (a full press just after a half press's
    /// preflash re-arms) waits for it and shoots, instead of being reported busy.
    @Test func aTriggerWhileArmingShootsOnceArmed() async throws {
        try await VirtualTimeDriver.run(Self.aTriggerWhileArmingShootsOnceArmed)
    }

    static func aTriggerWhileArmingShootsOnceArmed(_ clock: VirtualClock) async throws {
        let rig = try await Self.rig(devices: [.nova2], clock: clock)
        let flashes = try await rig.manager.connect(.all)
        let sequencer = ShutterSequencer(flashes: rig.manager, camera: ShutterSequencer.testCamera(exposure: .milliseconds(10), clock: clock),
                                         policy: ShotPolicy(ackDeadline: .seconds(5)), clock: clock)
        // A read holds the flash's bearer, so that arming waits for it (as after a preflash's
        // commands). The run's jobs go in order: each child starts, and waits, before this task
        // goes on.
        async let reading = flashes[0].flash.batteryLevel()
        await Task.yield()
        async let arming: Void = sequencer.arm()
        await Task.yield()
        #expect(sequencer.isArming)
        let record = await sequencer.shoot()
        #expect(record.outcome == .captured)
        #expect(record.flashes.map(\.armed) == [true], "the FLASH the arming prepared went out")
        await arming
        _ = try await reading
        try await rig.close()
    }

    @Test func aFlashThatDisconnectsMidShotFollowsThePolicy() async throws {
        try await VirtualTimeDriver.run(Self.aFlashThatDisconnectsMidShotFollowsThePolicy)
    }

    static func aFlashThatDisconnectsMidShotFollowsThePolicy(_ clock: VirtualClock) async throws {
        let rig = try await Self.rig(devices: [.nova2], clock: clock)
        try await rig.manager.connect(.all)
        let device = try #require(rig.world.devices.first)
        // The flash is switched off just as the shot begins: its command fails, the policy decides.
        let sequencer = ShutterSequencer(flashes: rig.manager, camera: {}, policy: ShotPolicy(onMissingAck: .abort), clock: clock)
        device.stop()
        let record = await sequencer.shoot()
        #expect(record.outcome == .aborted)
        #expect(record.flashes.first?.failure != nil)
        try await rig.close()
    }

    @Test func aHalfPressTurnsOnThePreflash() async throws {
        try await VirtualTimeDriver.run(Self.aHalfPressTurnsOnThePreflash)
    }

    static func aHalfPressTurnsOnThePreflash(_ clock: VirtualClock) async throws {
        let rig = try await Self.rig(devices: [.nova2], clock: clock)
        try await rig.manager.connect(.all)
        let sequencer = ShutterSequencer(flashes: rig.manager, camera: {}, clock: clock)
        #expect(await sequencer.preflash().isEmpty)
        // The simulated Nova V2's stored preflash: warm 64, cool 0, 60 ms.
        let device = try #require(rig.world.devices.first)
        #expect(device.log.contains("light warm 64 cool 0"))
        try await rig.close()
    }

    @Test func aHalfPressWhosePreflashFailsIsPublished() async throws {
        try await VirtualTimeDriver.run(Self.aHalfPressWhosePreflashFailsIsPublished)
    }

    static func aHalfPressWhosePreflashFailsIsPublished(_ clock: VirtualClock) async throws {
        let rig = try await Self.rig(devices: [.nova2, .grip], clock: clock, flashesMisbehave: .noAck)
        try await rig.manager.connect(.named("Nova2"))
        let flash = try #require(rig.manager.flashes.first)
        let sequencer = ShutterSequencer(flashes: rig.manager, camera: {}, policy: ShotPolicy(ackDeadline: .seconds(5)), clock: clock)
        var failures = sequencer.preflashFailures().makeAsyncIterator()
        let gripConnection = try await rig.central.connect(name: "Grip-S1")
        await sequencer.follow(try await Grip.attach(to: gripConnection.gatt))
        // The standard grip script's half press: the flash never acknowledges the preflash.
        let failure = try #require(await failures.next())
        #expect(failure.address == flash.address)
        #expect(failure.error.commandFailure != nil, "\(failure.error)")
        try await rig.close()
    }
}

/// Modelling lights in the shot: down after the FLASH is out, before the capture; back after the OFF.
@Suite(.timeLimit(.minutes(1))) struct ModellingLightsShotTests {
    @Test func lightsGoDownAfterTheFlashAndComeBackAfterTheOff() async throws {
        try await VirtualTimeDriver.run(Self.lightsGoDownAfterTheFlashAndComeBackAfterTheOff)
    }

    static func lightsGoDownAfterTheFlashAndComeBackAfterTheOff(_ clock: VirtualClock) async throws {
        let rig = try await ShutterSequencerTests.rig(devices: [.nova2, .lednet], clock: clock)
        try await rig.manager.connect(.all)
        let client = Client(backend: LEDnetBackend(central: rig.central, configuration: .init(scanDuration: .milliseconds(300))))
        try await client.fetch()
        let all = client.allLightTarget()
        try #require(all.count == 1)
        #expect(all.power)
        let sequencer = ShutterSequencer(flashes: rig.manager, camera: {}, policy: ShotPolicy(ackDeadline: .seconds(5)), clock: clock,
                                         modellingLights: ModellingLights(target: all, deadline: .seconds(5)))
        for _ in 0..<3 {
            let record = await sequencer.shoot()
            #expect(record.outcome == .captured)
            let lights = try #require(record.modellingLights)
            let flash = try #require(record.flashes.first)
            #expect(lights.failure == nil)
            #expect(lights.dimIssued >= flash.commandIssued, "the lights never go before the FLASH")
            #expect(try #require(lights.dimmed) <= (record.captureStart ?? 0), "down before the exposure")
            #expect(try #require(lights.restoreIssued) >= (flash.offAcknowledged ?? .max), "back only after the OFF")
            #expect(lights.restored != nil && lights.lightsDimmed == 1 && lights.lightsRestored == 1)
            #expect(all.power, "the light is on again between shots")
        }
        let light = try #require(rig.world.devices.first { $0.description.kind == .lednet })
        let powers = light.log.filter { $0.hasPrefix("command power") }
        #expect(powers == Array(repeating: ["command power(false)", "command power(true)"], count: 3).flatMap { $0 })
        try await client.close()
        try await rig.close()
    }
}
