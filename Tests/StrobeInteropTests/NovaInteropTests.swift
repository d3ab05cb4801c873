import Foundation
import Strobe
import StrobeSequencer
import Testing

/// The Nova kit against the project's Bumble-based Nova V1 and V2 flashes (written from the
/// protocol facts, run by Bumble's GATT server on Bumble's virtual controller).
@Suite(.timeLimit(.minutes(5))) struct NovaInteropTests {
    static func manager(_ host: HostUnderTest, ackTimeout: Duration = .seconds(2)) -> NovaFlashManager {
        NovaFlashManager(central: host.central, clock: ContinuousClock(), mode: .closest,
                         configuration: .init(scanBurst: .milliseconds(300), ackTimeout: ackTimeout))
    }

    static func requests(_ summary: [String: Any]) -> [[String]] {
        (summary["flashes"] as? [[String: Any]] ?? []).map { $0["requests"] as? [String] ?? [] }
    }

    @Test(arguments: ["v1", "v2"])
    func pingFlashAndOffSendExactlyTheDocumentedBytes(model: String) async throws {
        let peripheral = try await BumblePeripheral(script: "nova.py", arguments: ["--model", model])
        let host = try await HostUnderTest(transport: peripheral.transport)
        defer { host.close() }
        let manager = Self.manager(host)
        let connected = try await manager.connect(.closest)
        #expect(connected.count == 1)
        #expect(manager.status == .ready)
        let flash = try #require(connected.first).flash
        #expect(flash.model == (model == "v1" ? .v1 : .v2))

        _ = try await flash.ping()
        try await flash.beginFlash(NovaFlashSettings(warm: 0, cool: 255, timeoutMilliseconds: 1500))
        #expect(flash.isLit)
        try await flash.endFlash()
        #expect(!flash.isLit)
        try await connected[0].connection.disconnect()
        let summary = try await peripheral.stop()
        // Request ids count from 0. V1: ASCII `(II:BODY)`; V2: `[cmd][0][id u16 BE]...`.
        let expected = model == "v1"
            ? ["(00:P)", "(01:L,00,FF,05DC)", "(02:O)"].map { Data($0.utf8).map { String(format: "%02x", $0) }.joined() }
            : ["01000000", "0200000105dc00ff", "03000002"]
        #expect(Self.requests(summary) == [expected])
    }

    /// The sequencer's armed FLASH (one ACL packet built ahead of the trigger and sent by a
    /// compare-and-exchange and one write) as Bumble's stack receives it: the documented request,
    /// with the request id the queue reserved, on both models.
    @Test(arguments: ["v1", "v2"])
    func armedShotsReachBumblesFlashAsDocumentedRequests(model: String) async throws {
        let peripheral = try await BumblePeripheral(script: "nova.py", arguments: ["--model", model])
        let host = try await HostUnderTest(transport: peripheral.transport)
        defer { host.close() }
        let manager = Self.manager(host, ackTimeout: .seconds(10))
        let connected = try #require(try await manager.connect(.closest).first)
        let sequencer = ShutterSequencer(flashes: manager, camera: {}, policy: ShotPolicy(ackDeadline: .seconds(10)),
                                         clock: ContinuousClock())
        await sequencer.arm()
        for _ in 0..<2 {
            let record = await sequencer.shoot()
            #expect(record.outcome == .captured)
            #expect(record.flashes.map(\.armed) == [true])
        }
        try await connected.connection.disconnect()
        let summary = try await peripheral.stop()
        // FLASH full (500 ms safety timeout) and OFF, twice; each shot's FLASH armed after the OFF before it.
        let expected = model == "v1"
            ? ["(00:L,FF,FF,01F4)", "(01:O)", "(02:L,FF,FF,01F4)", "(03:O)"].map { Data($0.utf8).map { String(format: "%02x", $0) }.joined() }
            : ["0200000001f4ffff", "03000001", "0200000201f4ffff", "03000003"]
        #expect(Self.requests(summary) == [expected])
    }

    @Test func allModeFiresEveryFlashAndReportsEach() async throws {
        let peripheral = try await BumblePeripheral(script: "nova.py", arguments: ["--model", "v2", "--count", "3"])
        let host = try await HostUnderTest(transport: peripheral.transport)
        defer { host.close() }
        let manager = Self.manager(host)
        let connected = try await manager.connect(.all)
        #expect(connected.count == 3)
        let results = await manager.beginFlash(.full)
        #expect(results.count == 3)
        #expect(results.allSatisfy { (try? $0.result.get()) != nil })
        _ = await manager.endFlash()
        try await manager.disable()
        #expect(manager.status == .disabled)
        let summary = try await peripheral.stop()
        #expect(Self.requests(summary).map(\.count) == [2, 2, 2])
    }

    @Test func v2DefaultsCountersAndBattery() async throws {
        let peripheral = try await BumblePeripheral(script: "nova.py", arguments: ["--model", "v2", "--battery", "64", "--counters", "7,9,11"])
        let host = try await HostUnderTest(transport: peripheral.transport)
        defer { host.close() }
        let flash = try #require(try await Self.manager(host).connect(.closest).first).flash
        #expect(try await flash.batteryLevel().percent == 64)
        #expect(try await flash.readCounters().values == [7, 9, 11])
        let defaults = NovaFlashDefaults(regular: .warm, preflash: NovaFlashSettings(warm: 30, cool: 0, timeoutMilliseconds: 80))
        try await flash.writeDefaults(defaults)
        #expect(try await flash.readDefaults() == defaults)
        _ = try await peripheral.stop()
    }

    @Test func flashTriggerButtonArrivesAsEvents() async throws {
        let peripheral = try await BumblePeripheral(script: "nova.py", arguments: ["--model", "v2", "--trigger-after-ms", "1000"])
        let host = try await HostUnderTest(transport: peripheral.transport)
        defer { host.close() }
        let manager = Self.manager(host)
        // Subscribe to events before the flash is attached would be ideal; the press comes 1 s
        // after the subscription, long after `events()` below is registered.
        let flash = try #require(try await manager.connect(.closest).first).flash
        var presses: [Bool] = []
        for await event in flash.events() {
            if case .trigger(let pressed, _) = event { presses.append(pressed) }
            if presses.count == 2 { break }
        }
        #expect(presses == [true, false])
        _ = try await peripheral.stop()
    }

    @Test(arguments: [("--no-ack", "timeout"), ("--wrong-id", "violation"), ("--garbage", "violation")])
    func failureRules(option: String, expected: String) async throws {
        let peripheral = try await BumblePeripheral(script: "nova.py", arguments: ["--model", "v2", option])
        let host = try await HostUnderTest(transport: peripheral.transport)
        defer { host.close() }
        // A short ack timeout where no ack comes; the SDK's 2 s elsewhere, so that a slow (loaded)
        // machine does not turn a wrong answer into a timeout.
        let manager = Self.manager(host, ackTimeout: expected == "timeout" ? .milliseconds(300) : .seconds(2))
        let connected = try #require(try await manager.connect(.closest).first)
        let flash = connected.flash
        // Three commands queued behind each other: the rules decide how each ends.
        async let first = Result(catching: { try await flash.beginFlash(.full) })
        async let second = Result(catching: { try await flash.ping() })
        async let third = Result(catching: { try await flash.endFlash() })
        let results = await [first, second, third]
        switch expected {
        case "timeout":
            // Each times out in turn; the queue moves on and the link stays up.
            for result in results {
                #expect(throws: NovaError.command(.ackTimeout)) { try result.get() }
            }
            #expect(connected.connection.isConnected)
        default:
            // A bad answer fails everything and drops the link.
            for result in results {
                let error = #expect(throws: NovaError.self) { try result.get() }
                #expect(error?.commandFailure != nil)
            }
            #expect(await connected.connection.disconnected() == .remoteUserTerminatedConnection)
        }
        #expect(!flash.isLit)
        _ = try await peripheral.stop()
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

extension NovaInteropTests {
    @Test(arguments: ["v1", "v2"])
    func strobeFlashFireCompletes(model: String) async throws {
        let peripheral = try await BumblePeripheral(script: "nova.py", arguments: ["--model", model])
        let result = try await StrobeCommand.run(
            ["--transport", peripheral.transport, "flash", "--scan-ms", "300", "fire", "--warm", "16", "--cool", "32",
             "--timeout-ms", "800", "--hold-ms", "50"])
        let summary = try await peripheral.stop()
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.contains("acknowledged in") }, "\(result.stdout)")
        let expected = model == "v1"
            ? ["(00:L,10,20,0320)", "(01:O)"].map { Data($0.utf8).map { String(format: "%02x", $0) }.joined() }
            : ["0200000003201020", "03000001"]
        #expect(Self.requests(summary) == [expected])
    }
}
