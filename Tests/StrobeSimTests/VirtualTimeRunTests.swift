import Foundation
import StrobeCapture
import StrobeHCI
import StrobeHost
import Testing

import StrobeSim

/// The whole stack (central) against a simulated device with no real time passing: the
/// virtual-time driver runs each run's jobs one by one on a thread of its own, in this process,
/// moving the virtual clock only when nothing is left to run. The host's side of the wire is
/// recorded to a btsnoop file stamped with virtual time, and the runs are compared byte for byte.
@Suite(.timeLimit(.minutes(2))) struct VirtualTimeRunTests {
    /// Connect, discover, read (long), write, subscribe and 20 notifications, over a link with
    /// latency, jitter and 5 % loss, all drawn from `seed`.
    static func recordSession(seed: UInt64) async throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-virtual-\(UUID()).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = VirtualClock()
        try await VirtualTimeDriver.run(clock: clock, timeLimit: .seconds(120)) {
            var device = SimulatedDeviceDescription(kind: .test, name: "Strobe-Test", rssi: -61)
            device.count = 20
            var scenario = SimScenario(devices: [device], seed: seed)
            scenario.latencyMilliseconds = 2
            scenario.jitterMilliseconds = 1
            scenario.loss = 0.05
            let world = SimWorld(scenario: scenario, clock: clock)
            try await world.start()
            let recorder = try BtsnoopRecorder(wrapping: world.makeHostController(), path: path) {
                BtsnoopTimestamp(virtual: clock.now)
            }
            let controller = HCIController(transport: recorder, clock: clock)
            try await controller.open()
            let central = Central(controller: controller, clock: clock)
            let connection = try await central.connect(name: "Strobe-Test")
            let service = try #require(try await connection.gatt.discoverPrimaryServices(uuid: SimulatedTestDevice.service).first)
            let characteristics = try await connection.gatt.discoverCharacteristics(of: service)
            func characteristic(_ uuid: BluetoothUUID) throws -> GATTCharacteristic { try #require(characteristics.first { $0.uuid == uuid }) }
            let long = try await connection.gatt.readLong(handle: try characteristic(SimulatedTestDevice.long).valueHandle)
            guard long == (0..<300).map({ UInt8($0 % 256) }) else { throw SessionFailure.wrongValue }
            try await connection.gatt.write([0xAB], handle: try characteristic(SimulatedTestDevice.control).valueHandle)
            let ring = NotificationRing(capacity: 64)
            try await connection.gatt.subscribe(try characteristic(SimulatedTestDevice.counter), to: .notification, handler: ring)
            var received = 0
            for await _ in ring.notifications() {
                received += 1
                if received == 20 { break }
            }
            _ = try await connection.disconnect()
            try recorder.finishRecording()
            controller.close()
            world.stop()
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    enum SessionFailure: Error { case wrongValue }

    @Test func theSameSeedGivesTheSameBytesOnTheWire() async throws {
        let first = try await Self.recordSession(seed: 11)
        let again = try await Self.recordSession(seed: 11)
        let other = try await Self.recordSession(seed: 12)
        #expect(first == again)
        // Another seed draws other losses and delays: the same exchange, other times.
        #expect(first != other)

        // The capture holds the whole exchange, in virtual time.
        let decoder = try CaptureATTDecoder(bytes: first)
        var opcodes: [ATTOpcode] = []
        while let pdu = try decoder.next() { opcodes.append(ATTOpcode(rawValue: pdu.opcode)) }
        #expect(opcodes.contains(.exchangeMTURequest))
        #expect(opcodes.contains(.findByTypeValueRequest))
        #expect(opcodes.contains(.readBlobRequest))
        #expect(opcodes.contains(.writeRequest))
        #expect(opcodes.filter { $0 == .handleValueNotification }.count >= 20)
        let reader = try BtsnoopReader(bytes: first)
        var last = BtsnoopTimestamp(virtual: .init(offset: .zero))
        while let record = try reader.next() { last = record.timestamp }
        // Seconds of air time (advertising, 7.5 ms connection events, 10 ms notifications).
        #expect(last > BtsnoopTimestamp(virtual: .init(offset: .milliseconds(200))))
    }

    /// Total loss on a live link: a read queued behind it fails with a typed error and the link
    /// ends in a supervision timeout (0x08) one timeout after the loss began, to the connection
    /// event, in virtual time.
    @Test func aLinkThatLosesEverythingTimesOutOnTime() async throws {
        let clock = VirtualClock()
        let code = try await VirtualTimeDriver.run(clock: clock, timeLimit: .seconds(60)) { () async throws -> Int32 in
            let world = SimWorld(scenario: SimScenario(devices: [SimulatedDeviceDescription(kind: .test, name: "Strobe-Test")]), clock: clock)
            try await world.start()
            let host = world.makeHostController()
            let controller = HCIController(transport: host, clock: clock)
            try await controller.open()
            let connection = try await Central(controller: controller, clock: clock).connect(name: "Strobe-Test")
            let lossBegan = clock.now
            world.air.setConditions(LinkConditions(loss: 1), between: host, and: world.devices[0].controller)
            do {
                _ = try await connection.gatt.read(handle: 0x0003)
                return 1
            } catch StrobeError.bearer {}
            guard await connection.disconnected() == .connectionTimeout else { return 2 }
            let took = lossBegan.duration(to: clock.now)
            let timeout = connection.parameters.supervisionTimeoutDuration
            return took >= timeout && took <= timeout + connection.parameters.intervalDuration * 2 ? 0 : 3
        }
        #expect(code == 0)
    }

    /// A run whose only timer is on a real clock cannot be driven in virtual time: it says so at
    /// once instead of waiting in real time.
    @Test func aRunWaitingOnARealClockStalls() async throws {
        let clock = VirtualClock()
        do {
            try await VirtualTimeDriver.run(clock: clock) {
                try await ContinuousClock().sleep(for: .seconds(30))
            }
            Issue.record("the run ended")
        } catch let error as VirtualTimeError {
            #expect(error == .stalled(at: clock.now))
        }
    }

    /// Work handed to a thread of its own (a bond store's file, slow here as a busy disk is)
    /// holds the clock: a timer due later does not fire while the work takes real time, as it
    /// would not in real time.
    @Test func workOnAThreadOfItsOwnHoldsTheClock() async throws {
        let clock = VirtualClock()
        let code = try await VirtualTimeDriver.run(clock: clock) { () async throws -> Int32 in
            let timer = Task(executorPreference: clock.executor) { try await clock.sleep(for: .seconds(30)) }
            defer { timer.cancel() }
            let finishedAt = await onThreadOfItsOwn { () -> VirtualClock.Instant in
                usleep(50_000)
                return clock.now
            }
            return finishedAt.offset == .zero && clock.now.offset == .zero ? 0 : 1
        }
        #expect(code == 0)
    }

    /// A run that waits for what can never come ends with a typed error, not a hang.
    @Test func aRunWaitingForNothingStalls() async throws {
        let clock = VirtualClock()
        do {
            try await VirtualTimeDriver.run(clock: clock) {
                let (stream, _) = AsyncStream.makeStream(of: Int.self)
                for await _ in stream {}
            }
            Issue.record("the run ended")
        } catch let error as VirtualTimeError {
            #expect(error == .stalled(at: clock.now))
        }
    }

    /// A world that advertises forever never stalls; the time limit ends it.
    @Test func aRunPastItsTimeLimitEnds() async throws {
        let clock = VirtualClock()
        do {
            try await VirtualTimeDriver.run(clock: clock, timeLimit: .seconds(10)) {
                let world = SimWorld(scenario: .standard, clock: clock)
                try await world.start()
                let (stream, _) = AsyncStream.makeStream(of: Int.self)
                for await _ in stream {}
            }
            Issue.record("the run ended")
        } catch let error as VirtualTimeError {
            guard case .timeLimitExceeded(let at) = error else {
                Issue.record("ended with \(error)")
                return
            }
            #expect(at.offset <= .seconds(10) && at.offset > .seconds(9))
        }
    }

    /// A cancelled caller (a test past its time limit, say) ends the run at once, not at the
    /// run's own limit: its body is cancelled, and the driver stops.
    @Test func aCancelledRunEnds() async throws {
        let clock = VirtualClock()
        let run = Task {
            try await VirtualTimeDriver.run(clock: clock, timeLimit: .seconds(3600)) {
                let world = SimWorld(scenario: .standard, clock: clock)
                try await world.start()
                while !Task.isCancelled { try? await clock.sleep(for: .seconds(1)) }
                world.stop()
            }
        }
        run.cancel()
        switch await run.result {
        case .success, .failure(is CancellationError): break
        case .failure(let error): Issue.record("the run ended with \(error)")
        }
        #expect(clock.now.offset < .seconds(3600))
    }

    /// A sleep on the clock from a task that does not run on its executor is counted while the
    /// clock is driven (the driver fails such a run with `.escaped`); one from the run's own
    /// tasks is not.
    @Test func aSleepFromATaskOutsideTheRunIsCounted() async throws {
        let clock = VirtualClock()
        let scheduler = clock.scheduler
        #expect(scheduler.beginDriving())
        #expect(!scheduler.beginDriving())
        // This test's own task runs on the app's pool: outside the run.
        try await clock.sleep(until: clock.now)
        let inside = Task(executorPreference: clock.executor) { try await clock.sleep(until: clock.now) }
        while scheduler.runNext() {}
        try await inside.value
        #expect(scheduler.endDriving() == 1)
        // After the run, nothing is counted, and nobody drives the clock again: what the run
        // left runs one at a time, after it.
        try await clock.sleep(until: clock.now)
        #expect(!scheduler.beginDriving())
        let after = Task(executorPreference: clock.executor) { 1 }
        #expect(await after.value == 1)
    }
}
