import Foundation
import StrobeCapture
import StrobeHCI
import StrobeHost
import StrobeSim
import Testing

import StrobeDevices
import StrobeSequencer

/// Shots in virtual time: a scripted grip press drives the sequencer against simulated Nova
/// flashes, each run under the virtual-time driver, the host's wire recorded with virtual
/// timestamps. The test checks the bytes that left the host and when they left.
@Suite(.timeLimit(.minutes(2))) struct ScriptedShotTests {
    /// What a run leaves: the shot records, per flash its address and request handle, and what
    /// each simulated flash did (by address).
    struct RunResult: Sendable {
        var records: [ShotRecord]
        var requestHandles: [String: AttributeHandle]
        var deviceLogs: [String: [String]]
        /// Times the sequencer's warmer read the armed path.
        var warmReads: Int
    }

    struct Run {
        var result: RunResult
        var capture: [UInt8]
    }

    static let exposure = Duration.milliseconds(30)
    static let ackDeadline = Duration.milliseconds(150)

    /// Scenarios, by name.
    static func scenario(_ name: String) -> (flashes: [SimulatedDeviceDescription], presses: [Double], onMissingAck: ShotPolicy.MissingAck) {
        var lossy = SimulatedDeviceDescription(kind: .nova2, name: "Nova2", rssi: -48)
        lossy.misbehaviour = .noAck
        return switch name {
        case "one": ([SimulatedDeviceDescription(kind: .nova2, name: "Nova2", rssi: -48)], [0.7], .captureWithoutFlash)
        case "three": ([SimulatedDeviceDescription(kind: .nova1, name: "Nova", rssi: -57),
                        SimulatedDeviceDescription(kind: .nova2, name: "Nova2", rssi: -48),
                        SimulatedDeviceDescription(kind: .nova2, name: "Nova2", rssi: -50)], [0.7], .captureWithoutFlash)
        case "lostAck": ([lossy], [0.7], .captureWithoutFlash)
        // A second press 10 ms after the first, while the first shot's exposure runs.
        case "busy": ([SimulatedDeviceDescription(kind: .nova2, name: "Nova2", rssi: -48)], [0.7, 0.01], .captureWithoutFlash)
        case "disconnect": ([lossy], [0.7], .abort)
        // Two presses 300 ms apart; a battery read before the first withdraws the armed FLASH.
        case "withdrawn": ([SimulatedDeviceDescription(kind: .nova2, name: "Nova2", rssi: -48)], [0.7, 0.3], .captureWithoutFlash)
        // Five presses 300 ms apart on two flashes, with and without a warmer.
        case "fiveWarm", "fiveCold": ([SimulatedDeviceDescription(kind: .nova1, name: "Nova", rssi: -57),
                                       SimulatedDeviceDescription(kind: .nova2, name: "Nova2", rssi: -48)],
                                      [0.7, 0.3, 0.3, 0.3, 0.3], .captureWithoutFlash)
        default: ([], [], .abort)
        }
    }

    /// The sequencer's warmer: reading every 20 µs of real time (its timer is the runtime's, not
    /// the virtual clock's), never, or the default.
    static func keepWarm(_ name: String) -> Duration? {
        switch name {
        case "fiveWarm": .microseconds(20)
        case "fiveCold": nil
        default: .milliseconds(2)
        }
    }

    static func run(_ name: String, seed: UInt64 = 5) async throws -> Run {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-shot-\(UUID()).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = VirtualClock()
        let result = try await VirtualTimeDriver.run(clock: clock, timeLimit: .seconds(60)) {
            try await Self.shoot(name, seed: seed, path: path, clock: clock)
        }
        return Run(result: result, capture: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// In virtual time: the world, the host, the flashes, the grip, and the shots its presses make.
    static func shoot(_ name: String, seed: UInt64, path: String, clock: VirtualClock) async throws -> RunResult {
        let setup = scenario(name)
        var grip = SimulatedDeviceDescription(kind: .grip, name: "Grip-S1", rssi: -60)
        grip.firmware = "1.4.0"
        grip.gripEvents = setup.presses.map { .init(after: $0, code: 0x02) }
        let world = SimWorld(scenario: SimScenario(devices: setup.flashes + [grip], seed: seed), clock: clock)
        try await world.start()
        let recorder = try BtsnoopRecorder(wrapping: world.makeHostController(), path: path) { BtsnoopTimestamp(virtual: clock.now) }
        let controller = HCIController(transport: recorder, clock: clock)
        try await controller.open()
        // Pairing with the grip draws its random values from the seed too.
        let central = Central(controller: controller, clock: clock,
                              security: SecurityManager(random: SeededRandomSource(seed: seed).bytes))
        let manager = NovaFlashManager(central: central, clock: clock, configuration: .init(scanBurst: .seconds(1)))
        let flashes = try await manager.connect(.all)
        guard flashes.count == setup.flashes.count else { throw ScriptFailure.flashesMissing(flashes.count) }
        let sequencer = ShutterSequencer(
            flashes: manager, camera: ShutterSequencer.testCamera(exposure: exposure, clock: clock),
            policy: ShotPolicy(ackDeadline: ackDeadline, onMissingAck: setup.onMissingAck), clock: clock,
            hostTime: { world.air.hostTime() }, keepWarm: keepWarm(name))
        var records = sequencer.records().makeAsyncIterator()
        let gripConnection = try await central.connect(name: "Grip-S1")
        await sequencer.follow(try await Grip.attach(to: gripConnection.gatt))
        if name == "disconnect" {
            // The flash goes away just after the press (0.7 s after the grip subscribed), its
            // command unacknowledged.
            let device = world.devices[0]
            Task(executorPreference: clock.executor) {
                try await clock.sleep(for: .milliseconds(715))
                device.stop()
            }
        }
        if keepWarm(name) != nil {
            // The warmer reads in real time, on the app's pool beside the run: the run holds its
            // clock (work on a thread of its own does) until the warmer has read, so that the
            // presses meet a path it reads however busy the machine is.
            let warmed = await onThreadOfItsOwn { () -> Bool in
                let giveUp = ContinuousClock.now.advanced(by: .seconds(30))
                while sequencer.warmReads == 0 {
                    if ContinuousClock.now > giveUp { return false }
                    usleep(100)
                }
                return true
            }
            guard warmed else { throw ScriptFailure.warmerNeverRead }
        }
        if name == "withdrawn" {
            // The battery read needs the flash's bearer, so the FLASH armed for the press gives way.
            _ = try await flashes[0].flash.batteryLevel()
        }
        var shots: [ShotRecord] = []
        while shots.count < setup.presses.count, let record = await records.next() { shots.append(record) }
        try recorder.finishRecording()
        try await manager.disable()
        controller.close()
        world.stop()
        return RunResult(
            records: shots,
            requestHandles: Dictionary(uniqueKeysWithValues: flashes.map { ($0.address.description, $0.flash.requestHandle) }),
            deviceLogs: Dictionary(uniqueKeysWithValues: world.devices.map { ($0.controller.configuration.address.description, $0.log) }),
            warmReads: sequencer.warmReads)
    }

    enum ScriptFailure: Error {
        case flashesMissing(Int)
        case warmerNeverRead
    }

    // MARK: Checks

    @Test func oneFlash() async throws {
        let run = try await Self.run("one")
        try Self.checkShot(run, expected: ["C4:5E:00:00:00:01": .v2])
    }

    @Test func threeFlashes() async throws {
        let run = try await Self.run("three")
        try Self.checkShot(run, expected: ["C4:5E:00:00:00:01": .v1, "C4:5E:00:00:00:02": .v2, "C4:5E:00:00:00:03": .v2])
        // All three were told to fire at the same instant.
        #expect(run.result.records[0].skew == 0)
    }

    @Test func theSameSeedReplaysTheSameShot() async throws {
        let first = try await Self.run("three", seed: 9)
        let again = try await Self.run("three", seed: 9)
        #expect(first.capture == again.capture)
        #expect(first.result.records == again.result.records)
    }

    /// The press, the commands (at the instant the press arrived), the acks, the exposure and
    /// the offs (at the instant the exposure ended), against the capture and the record.
    static func checkShot(_ run: Run, expected models: [String: NovaModel]) throws {
        let wire = try Wire(run.capture)
        let record = try #require(run.result.records.first)
        #expect(record.outcome == .captured)

        // The grip's press: written at the grip's first connection event after the press, which is
        // 0.7 s after the grip got the host's subscription (its first event after the CCCD write
        // it accepted: the first came before the link was encrypted and was refused).
        let grip = try #require(wire.links["C4:5E:00:00:00:0\(models.count + 1)"])
        let subscribed = grip.nextEvent(after: try #require(wire.sent(on: grip.handle, opcode: 0x12).last).time)
        let pressArrives = grip.nextEvent(atOrAfter: subscribed + 700_000)
        let press = try #require(wire.received(on: grip.handle, opcode: 0x1B).last)
        #expect(press.time == pressArrives)
        #expect(record.triggerReceived == nanoseconds(press.time))

        var acks: [Int64] = []
        for (address, model) in models {
            let link = try #require(wire.links[address])
            let requestHandle = try #require(run.result.requestHandles[address]?.rawValue)
            let writes = wire.sent(on: link.handle, opcode: 0x12).filter { $0.attributeHandle == requestHandle }
            try #require(writes.count == 2)
            // FLASH full (255, 255, the 500 ms safety timeout), request id 0, then OFF, id 1.
            let (on, off): ([UInt8], [UInt8]) = model == .v1
                ? (Array("(00:L,FF,FF,01F4)".utf8), Array("(01:O)".utf8))
                : ([0x02, 0x00, 0x00, 0x00, 0x01, 0xF4, 0xFF, 0xFF], [0x03, 0x00, 0x00, 0x01])
            #expect(writes[0].acl == Wire.writeRequest(connection: link.handle, attribute: requestHandle, value: on))
            #expect(writes[1].acl == Wire.writeRequest(connection: link.handle, attribute: requestHandle, value: off))
            // The command leaves at the instant the press arrived: no host time passes in between.
            #expect(writes[0].time == press.time)
            let ack = try #require(wire.received(on: link.handle, opcode: 0x1B).first { $0.time > press.time })
            // Acks come with the flash's connection events.
            #expect(link.isEvent(ack.time))
            acks.append(ack.time)
            let timing = try #require(record.flashes.first { $0.address == address })
            #expect(timing.commandIssued == nanoseconds(press.time))
            // It left from the trigger's own thread, armed ahead of the press.
            #expect(timing.armed)
            #expect(timing.acknowledged == nanoseconds(ack.time))
        }
        // The camera starts at the last ack and exposes for 30 ms; every OFF leaves as it ends.
        let lastAck = try #require(acks.max())
        #expect(record.captureStart == nanoseconds(lastAck))
        #expect(record.captureEnd == nanoseconds(lastAck + 30_000))
        for (address, _) in models {
            let link = try #require(wire.links[address])
            let off = try #require(wire.sent(on: link.handle, opcode: 0x12).last)
            #expect(off.time == lastAck + 30_000)
            // The flash itself lit at full and went dark on the OFF, not on its safety timeout.
            let log = try #require(run.result.deviceLogs[address])
            #expect(log.contains("light warm 255 cool 255"))
            #expect(log.contains("light off (off)"))
            #expect(!log.contains("light off (safety timeout)"))
        }
    }

    /// Capture microseconds as the record's nanoseconds.
    static func nanoseconds(_ microseconds: Int64) -> UInt64 { UInt64(microseconds) * 1000 }

    @Test func aLostAckCapturesWithoutFlashAtTheDeadline() async throws {
        let run = try await Self.run("lostAck")
        let record = try #require(run.result.records.first)
        #expect(record.outcome == .capturedWithoutFlash)
        #expect(record.flashes.first?.failure == ShotError.ackDeadline(Self.ackDeadline).description)
        // The deadline is exact in virtual time: 150 ms after the command.
        #expect(record.captureStart == record.triggerReceived + 150_000_000)
        // OFF still goes out, so a late light does not stay on.
        #expect(record.flashes.first?.offIssued == record.triggerReceived + 180_000_000)
    }

    @Test func aPressDuringAShotIsReportedBusy() async throws {
        let run = try await Self.run("busy")
        // Records come as shots end: the busy one first, while the first shot still exposes.
        #expect(run.result.records.map(\.outcome) == [.busy, .captured])
        let (first, second) = (run.result.records[1], run.result.records[0])
        #expect((first.shot, second.shot) == (1, 2))
        #expect(second.triggerReceived > first.triggerReceived)
        #expect(second.triggerReceived < first.captureEnd ?? 0)
        #expect(second.flashes.isEmpty)
    }

    @Test func aWithdrawnArmedFlashStillFiresAndIsArmedAgain() async throws {
        let run = try await Self.run("withdrawn")
        let records = run.result.records
        #expect(records.map(\.outcome) == [.captured, .captured])
        // The first FLASH went through the queue, the second was armed again after the first shot.
        #expect(records.map { $0.flashes.map(\.armed) } == [[false], [true]])
        let wire = try Wire(run.capture)
        let address = "C4:5E:00:00:00:01"
        let link = try #require(wire.links[address])
        let requestHandle = try #require(run.result.requestHandles[address]?.rawValue)
        let writes = wire.sent(on: link.handle, opcode: 0x12).filter { $0.attributeHandle == requestHandle }
        // FLASH, OFF, FLASH, OFF: the withdrawn command's request id (0) never went out.
        #expect(writes.map { Array($0.acl[11...]) } == [
            [0x02, 0x00, 0x00, 0x01, 0x01, 0xF4, 0xFF, 0xFF], [0x03, 0x00, 0x00, 0x02],
            [0x02, 0x00, 0x00, 0x03, 0x01, 0xF4, 0xFF, 0xFF], [0x03, 0x00, 0x00, 0x04],
        ])
        // The armed one left at the instant its press arrived.
        #expect(writes[2].time * 1000 == Int64(records[1].triggerReceived))
        #expect(records[1].flashes[0].commandIssued == records[1].triggerReceived)
    }

    @Test func aWarmerReadingOftenChangesNothingOnTheWire() async throws {
        let warm = try await Self.run("fiveWarm")
        let cold = try await Self.run("fiveCold")
        #expect(warm.result.warmReads > 0)
        #expect(cold.result.warmReads == 0)
        #expect(warm.result.records.count == 5)
        #expect(warm.result.records.allSatisfy { $0.outcome == .captured })
        // Every shot's FLASH commands left from the trigger's thread, at the instant of its press.
        for record in warm.result.records {
            #expect(record.flashes.map(\.armed) == [true, true])
            #expect(record.flashes.allSatisfy { $0.commandIssued == record.triggerReceived })
        }
        // The same run with no warmer, byte for byte and microsecond for microsecond.
        #expect(warm.capture == cold.capture)
        #expect(warm.result.records == cold.result.records)
    }

    @Test func aFlashThatDisconnectsMidShotAbortsIt() async throws {
        let run = try await Self.run("disconnect")
        let record = try #require(run.result.records.first)
        #expect(record.outcome == .aborted)
        #expect(record.captureStart == nil)
        let failure = try #require(record.flashes.first?.failure)
        #expect(failure.contains("disconnect"))
        // It failed when the link went, before the ack deadline.
        let wire = try Wire(run.capture)
        #expect(wire.disconnections.count == 1)
    }
}

/// The host's side of a recorded run, in microseconds of virtual time.
struct Wire {
    struct Link {
        var handle: UInt16
        var established: Int64
        var interval: Int64

        func isEvent(_ time: Int64) -> Bool { (time - established) % interval == 0 }
        func nextEvent(after time: Int64) -> Int64 { established + ((time - established) / interval + 1) * interval }
        func nextEvent(atOrAfter time: Int64) -> Int64 { isEvent(time) ? time : nextEvent(after: time) }
    }

    struct ATTPacket {
        var time: Int64
        var sent: Bool
        var handle: UInt16
        var opcode: UInt8
        var attributeHandle: UInt16?
        var acl: [UInt8]
    }

    var links: [String: Link] = [:]
    var packets: [ATTPacket] = []
    var disconnections: [UInt16] = []

    init(_ capture: [UInt8]) throws {
        let reader = try BtsnoopReader(bytes: capture)
        while let record = try reader.next() {
            let time = record.timestamp.unixMicroseconds
            let bytes = Array(record.payload)
            switch record.packetType {
            case .event? where bytes.count >= 19 && bytes[0] == 0x3E && bytes[2] == 0x01 && bytes[3] == 0x00:
                // LE Connection Complete: handle, role, peer address type, peer address, interval.
                let handle = UInt16(bytes[4]) | UInt16(bytes[5]) << 8
                let address = bytes[8..<14].reversed().map { String(format: "%02X", $0) }.joined(separator: ":")
                let interval = Int64(UInt16(bytes[14]) | UInt16(bytes[15]) << 8) * 1250
                links[address] = Link(handle: handle, established: time, interval: interval)
            case .event? where bytes.count >= 6 && bytes[0] == 0x05 && bytes[2] == 0x00:
                disconnections.append(UInt16(bytes[3]) | UInt16(bytes[4]) << 8)
            case .acl? where bytes.count >= 9 && bytes[6] == 0x04 && bytes[7] == 0x00:
                // A whole ATT PDU in one start fragment (every PDU here is shorter than 27 bytes).
                let handle = (UInt16(bytes[0]) | UInt16(bytes[1]) << 8) & 0x0FFF
                let attribute = bytes.count >= 11 ? UInt16(bytes[9]) | UInt16(bytes[10]) << 8 : nil
                packets.append(ATTPacket(time: time, sent: record.flags & 1 == 0, handle: handle, opcode: bytes[8],
                                         attributeHandle: attribute, acl: bytes))
            default:
                break
            }
        }
    }

    func sent(on handle: UInt16, opcode: UInt8) -> [ATTPacket] {
        packets.filter { $0.sent && $0.handle == handle && $0.opcode == opcode }
    }

    func received(on handle: UInt16, opcode: UInt8) -> [ATTPacket] {
        packets.filter { !$0.sent && $0.handle == handle && $0.opcode == opcode }
    }

    /// An ATT Write Request in one LE ACL packet (Core Vol 4 Part E 5.4.2, Vol 3 Part A 3.1, Part F 3.4.5.1).
    static func writeRequest(connection: UInt16, attribute: UInt16, value: [UInt8]) -> [UInt8] {
        let att = [0x12, UInt8(attribute & 0xFF), UInt8(attribute >> 8)] + value
        let l2cap = [UInt8(att.count & 0xFF), UInt8(att.count >> 8), 0x04, 0x00] + att
        return [UInt8(connection & 0xFF), UInt8(connection >> 8), UInt8(l2cap.count & 0xFF), UInt8(l2cap.count >> 8)] + l2cap
    }
}
