import Foundation
import Testing

/// `strobe gatt` against Bumble's GATT peripheral over H4/TCP, at MTU 23 and 247, and against the
/// simulated world: what the tool prints is what the peer declares, holds and saw.
/// One case at a time: each starts a Bumble process, and a dozen at once crowd a small machine.
@Suite(.serialized, .timeLimit(.minutes(5))) struct GATTCommandTests {
    static let service = "6E400001-B5A3-F393-E0A9-E50E24DC0001"
    static let longRead = "6E400002-B5A3-F393-E0A9-E50E24DC0001"
    static let write = "6E400003-B5A3-F393-E0A9-E50E24DC0001"
    static let notify = "6E400004-B5A3-F393-E0A9-E50E24DC0001"

    static func gatt(_ peripheral: BumblePeripheral, mtu: Int, _ arguments: [String]) async throws -> StrobeCommand.Result {
        try await StrobeCommand.run(["--transport", peripheral.transport, "gatt", "--name", peripheral.name, "--mtu", "\(mtu)"] + arguments)
    }

    @Test(arguments: [23, 247])
    func treeListsExactlyWhatThePeripheralDeclares(mtu: Int) async throws {
        let peripheral = try await BumblePeripheral()
        let result = try await Self.gatt(peripheral, mtu: mtu, ["tree", "--json", "--read"])
        let summary = try await peripheral.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let tree = try #require(try JSONLines.objects(result.stdout).first)
        let services = try #require(tree["services"] as? [[String: Any]])
        let declared = try #require(summary["gatt_database"] as? [[String: Any]])
        // Services, then each service's characteristics with their properties, in handle order.
        func shape(_ services: [[String: Any]], properties: ([String: Any]) -> Int) -> [String] {
            services.flatMap { service in
                ["service \(service["uuid"] ?? "")"] + ((service["characteristics"] as? [[String: Any]]) ?? []).map {
                    "characteristic \($0["uuid"] ?? "") \(properties($0))"
                }
            }
        }
        let names = ["broadcast": 0x01, "read": 0x02, "writeWithoutResponse": 0x04, "write": 0x08, "notify": 0x10,
                     "indicate": 0x20, "authenticatedSignedWrites": 0x40, "extendedProperties": 0x80]
        let seen = shape(services) { (($0["properties"] as? [String]) ?? []).reduce(0) { $0 | (names[$1] ?? 0x100) } }
        let expected = shape(declared) { $0["properties"] as? Int ?? -1 }
        #expect(seen == expected)
        // Assigned names from the SIG's table; the test service's notify characteristic has its CCCD.
        #expect(services.first?["name"] as? String == "Generic Access")
        let test = try #require(services.first { $0["uuid"] as? String == Self.service })
        let characteristics = try #require(test["characteristics"] as? [[String: Any]])
        let notify = try #require(characteristics.first { $0["uuid"] as? String == Self.notify })
        #expect((notify["descriptors"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Client Characteristic Configuration"])
        let long = try #require(characteristics.first { $0["uuid"] as? String == Self.longRead })
        #expect(long["value"] as? String == Self.longValueHex)
    }

    static let longValueHex = (0..<300).map { String(format: "%02x", $0 % 256) }.joined()

    @Test(arguments: [23, 247])
    func readPrintsTheWhole300ByteValue(mtu: Int) async throws {
        let peripheral = try await BumblePeripheral()
        let result = try await Self.gatt(peripheral, mtu: mtu, ["read", Self.longRead])
        _ = try await peripheral.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == Self.longValueHex + "\n")
    }

    @Test(arguments: [(23, false), (23, true), (247, false), (247, true)])
    func writesReachThePeripheral(mtu: Int, withoutResponse: Bool) async throws {
        let peripheral = try await BumblePeripheral()
        // Longer than one PDU at MTU 23 (a long write there) when a response is asked for.
        let value = withoutResponse ? "0102030405060708090a" : (0..<60).map { String(format: "%02x", $0) }.joined()
        let result = try await Self.gatt(peripheral, mtu: mtu, ["write", Self.write, value] + (withoutResponse ? ["--without-response"] : []))
        let summary = try await peripheral.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(summary["last_write"] as? String == value)
        // A Write Command, a Write Request at MTU 247, a long write (Prepare Write) at MTU 23.
        if withoutResponse {
            #expect(summary["write_commands"] as? Int == 1)
        } else {
            #expect(summary["write_requests"] as? Int == (mtu == 23 ? 0 : 1))
        }
    }

    @Test(arguments: [23, 247])
    func subscribeCountsTenThousandValuesWithoutAGap(mtu: Int) async throws {
        let peripheral = try await BumblePeripheral(arguments: ["--notify-count", "10000"])
        let result = try await Self.gatt(peripheral, mtu: mtu, ["subscribe", Self.notify, "--count", "10000", "--json"])
        _ = try await peripheral.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try JSONLines.objects(result.stdout)
        #expect(lines.count == 10_001)
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["count"] as? Int == 10_000)
        #expect(summary["sequenceGaps"] as? Int == 0)
        #expect(lines.first?["t"] as? Double == 0)
    }

    @Test func anATTErrorIsOneLineNamingTheHandle() async throws {
        let peripheral = try await BumblePeripheral()
        // No attribute has handle 0x00FF: Bumble answers Invalid Handle.
        let result = try await Self.gatt(peripheral, mtu: 247, ["read", "0x00ff"])
        _ = try await peripheral.stop()
        #expect(result.status == 1)
        #expect(result.stderr == "strobe: error: read 0x00FF: Invalid Handle (0x01)\n")
    }

    @Test func aDeviceThatIsNotThereIsOneLineWithinTheTimeout() async throws {
        let peripheral = try await BumblePeripheral()
        let started = ContinuousClock.now
        let result = try await StrobeCommand.run(
            ["--transport", peripheral.transport, "gatt", "--name", "Nobody-Here", "--timeout", "2", "read", "0x0003"])
        let took = ContinuousClock.now - started
        _ = try await peripheral.stop()
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("Nobody-Here"))
        #expect(took < .seconds(15))
    }

    /// The simulated Nova V2's services by their assigned names.
    @Test func treeOnTheSimulatedWorldNamesTheNovasServices() async throws {
        let result = try await StrobeCommand.run(["gatt", "--name", "Nova2", "tree"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("service 180F Battery ["))
        #expect(result.stdout.contains("characteristic 2A19 Battery Level value "))
        #expect(result.stdout.contains("service EFF0 ["))
    }

    /// The simulated test device: its long value read whole, a write taken, 50 values in order.
    @Test func readWriteAndSubscribeOnTheSimulatedWorld() async throws {
        let base = ["gatt", "--name", "Strobe-Test"]
        let read = try await StrobeCommand.run(base + ["read", "8D1E0002-3B5A-4C6E-9F00-5A7B0BE0C0DE"])
        #expect(read.status == 0, "\(read.stderr)")
        // Its 300-byte value counts up from 0, as the Bumble fixture's does.
        #expect(read.stdout == Self.longValueHex + "\n")
        let write = try await StrobeCommand.run(base + ["write", "8D1E0003-3B5A-4C6E-9F00-5A7B0BE0C0DE", "0102"])
        #expect(write.status == 0, "\(write.stderr)")
        #expect(write.stdout.isEmpty)
        let subscribe = try await StrobeCommand.run(base + ["subscribe", "8D1E0004-3B5A-4C6E-9F00-5A7B0BE0C0DE", "--count", "50", "--json"])
        #expect(subscribe.status == 0, "\(subscribe.stderr)")
        let summary = try #require(try JSONLines.objects(subscribe.stdout).last?["summary"] as? [String: Any])
        #expect(summary["count"] as? Int == 50)
        #expect(summary["sequenceGaps"] as? Int == 0)
    }
}
