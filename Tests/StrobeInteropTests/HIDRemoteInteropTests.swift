import Foundation
import Strobe
import StrobeTestSupport
import Testing

extension RootCanalTests {
    /// `strobe remote events` against a shutter remote written on Google Bumble
    /// (`Tests/Fixtures/Bumble/hid_remote.py`: HID over GATT, its reports and CCCDs needing an
    /// encrypted link) on RootCanal: it pairs, subscribes and reports every press in order; after
    /// the remote restarts with its keys, the bond encrypts the link without pairing again.
    struct HIDRemoteInteropTests {
        static func events(_ rootCanal: RootCanal, bonds: String, count: Int) async throws -> (events: [[String: Any]], summary: [String: Any]) {
            let result = try await StrobeCommand.run(
                ["--transport", rootCanal.transport, "remote", "events", "--name", "Bumble-Shutter", "--count", "\(count)",
                 "--bonds", bonds, "--json", "--duration", "30"])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = try JSONLines.objects(result.stdout)
            return (lines.filter { $0["event"] != nil }, lines.last ?? [:])
        }

        @Test func pairsReportsEveryPressAndReconnectsBonded() async throws {
            try await RootCanal.with { rootCanal in
                let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-hid-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: scratch) }
                let keystore = scratch.appendingPathComponent("bumble-keys.json").path
                let bonds = scratch.appendingPathComponent("bonds.json").path

                let remote = try await BumbleSMPPeer(on: rootCanal, script: "hid_remote.py",
                                                     arguments: ["--presses", "5", "--keystore", keystore])
                let first = try await Self.events(rootCanal, bonds: bonds, count: 5)
                #expect(first.events.map { $0["event"] as? String } == Array(repeating: ["press", "release"], count: 5).flatMap { $0 })
                #expect(first.events.allSatisfy { $0["usage"] as? String == "consumer:0x00e9" })
                #expect(first.summary["presses"] as? Int == 5 && first.summary["malformed"] as? Int == 0)
                _ = try await remote.event("PAIRED")
                #expect(remote.output.lines.filter { $0.hasPrefix("PRESS") }.count == 5, "every press the remote sent arrived")
                #expect(try FileBondStore(path: bonds).bonds().map(\.peer.address) == [BluetoothAddress(remote.address)!])
                await remote.stop()

                // The same remote, started again with its keys: encrypted with the bond, no pairing.
                let again = try await BumbleSMPPeer(on: rootCanal, script: "hid_remote.py",
                                                    arguments: ["--presses", "2", "--keystore", keystore])
                let second = try await Self.events(rootCanal, bonds: bonds, count: 2)
                #expect(second.events.map { $0["event"] as? String } == ["press", "release", "press", "release"])
                _ = try await again.event("ENCRYPTED")
                #expect(!again.has("PAIRED"))
            }
        }

        /// The HOGP host's reading of a HID device someone else wrote: HID Information, Device
        /// Information (with a PnP ID), both input reports with their CCCDs, Battery, Protocol Mode.
        @Test func theHostReadsWhatTheRemoteDeclares() async throws {
            try await RootCanal.with { rootCanal in
                let bumble = try await BumbleSMPPeer(on: rootCanal, script: "hid_remote.py", arguments: ["--presses", "1"])
                let host = try await HostUnderTest(transport: rootCanal.transport, security: SecurityManager(store: InMemoryBondStore()))
                defer { host.close() }
                let connection = try await host.central.connect(to: BluetoothAddress(bumble.address)!, addressType: .random, timeout: .seconds(20))
                let (events, sink) = AsyncStream.makeStream(of: ShutterRemoteEvent.self)
                let remote = try await ShutterRemote.attach(to: connection, handler: { sink.yield($0) })
                let device = remote.device
                #expect(device.information == HIDInformation(version: 0x0111, countryCode: 0, remoteWake: false, normallyConnectable: true))
                #expect(device.information?.description == "HID 1.11")
                #expect(device.deviceInformation == DeviceInformation(
                    manufacturerName: "Bumble", modelNumber: "HOGP Shutter",
                    pnpID: .init(vendorIDSource: 1, vendorID: 0xFFFF, productID: 0x0002, productVersion: 0x0110)))
                #expect(device.inputReports.map(\.layout.id) == [1, 2])
                #expect(Set(device.inputReports.map(\.clientConfiguration)).count == 2)
                #expect(device.protocolModeHandle != nil && !device.usesBootProtocol)
                #expect(try await remote.batteryLevel().percent == 64)
                var iterator = events.makeAsyncIterator()
                #expect(await iterator.next()?.kind == .press)
                _ = try await connection.disconnect()
            }
        }

        /// A remote that ends its link after its presses, as one that sleeps when idle does, is
        /// reconnected by `--reconnect` within one run: found again, encrypted with the bond,
        /// subscribed again, and every press of all three links arrives, in order.
        @Test func aRemoteThatSleepsWhenIdleIsReconnectedWithItsBond() async throws {
            try await RootCanal.with { rootCanal in
                let scratch = try ScratchDirectory("strobe-hid")
                defer { scratch.remove() }
                let bonds = scratch.path("bonds.json")
                let remote = try await BumbleSMPPeer(on: rootCanal, script: "hid_remote.py", arguments: ["--presses", "2", "--sleep-when-idle"])
                let result = try await StrobeCommand.run(
                    ["--transport", rootCanal.transport, "remote", "events", "--name", "Bumble-Shutter", "--count", "6",
                     "--bonds", bonds, "--reconnect", "--json", "--duration", "60"])
                #expect(result.status == 0, "\(result.stderr)")
                let lines = try JSONLines.objects(result.stdout)
                #expect(lines.compactMap { $0["event"] as? String } == Array(repeating: ["press", "release"], count: 6).flatMap { $0 })
                #expect(lines.last?["presses"] as? Int == 6 && lines.last?["malformed"] as? Int == 0)
                await remote.stop()
                let said = remote.output.lines
                #expect(said.filter { $0.hasPrefix("CONNECTED") }.count == 3)
                #expect(said.filter { $0.hasPrefix("PAIRED") }.count == 1, "paired on the first link only")
                #expect(said.filter { $0.hasPrefix("ENCRYPTED") }.count >= 3)
                #expect(said.filter { $0.hasPrefix("PRESS") }.count == 6, "every press the remote sent arrived")
            }
        }
    }
}
