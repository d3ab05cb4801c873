import Foundation
import Strobe
import StrobeBase
import Synchronization
import Testing

extension RootCanalTests {
    /// Robust caching against Bumble's GATT server on RootCanal, whose GATT service computes its
    /// own Database Hash: Strobe keeps the bonded peer's database with the bond, takes it again
    /// on the next link after reading only the hash, and discovers again once the peer added a
    /// service. The HCI traffic is recorded and read back by tshark, an independent decoder.
    struct GATTCacheInteropTests {
        struct Frame {
            var number: Int
            var subevent: String
            var opcode: String
            var uuid: String
        }

        /// The ATT requests Strobe sent on each link, in order: frames split at each LE
        /// (Enhanced) Connection Complete.
        static func requestsPerLink(_ path: String) async throws -> [[Frame]] {
            let lines = try await TSharkFrames.fields(
                path, ["frame.number", "bthci_evt.le_meta_subevent", "btatt.opcode", "btatt.uuid16"],
                filter: "bthci_evt.le_meta_subevent == 0x01 || bthci_evt.le_meta_subevent == 0x0a || (btatt && frame.p2p_dir == 0)")
            var links: [[Frame]] = []
            for line in lines {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                let frame = Frame(number: Int(fields[0]) ?? 0, subevent: fields[safe: 1] ?? "", opcode: fields[safe: 2] ?? "",
                                  uuid: fields[safe: 3] ?? "")
                if !frame.subevent.isEmpty {
                    links.append([])
                } else if !links.isEmpty {
                    links[links.count - 1].append(frame)
                }
            }
            return links
        }

        static func hex(_ bytes: [UInt8]?) -> String? { bytes.map { $0.map { String(format: "%02x", $0) }.joined() } }

        @Test func anUnchangedDatabaseIsTakenFromTheBondAChangedOneDiscoveredAgain() async throws {
            try await RootCanal.with { rootCanal in
                let peer = try await BumbleSMPPeer(on: rootCanal, arguments: ["--role", "peripheral", "--add-service-after", "2"])
                let capture = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-gatt-cache-\(UUID().uuidString).btsnoop").path
                defer { try? FileManager.default.removeItem(atPath: capture) }
                let recorder = Lock<BtsnoopRecorder?>(nil)
                let store = InMemoryBondStore()
                let host = try await HostUnderTest(transport: rootCanal.transport, security: SecurityManager(store: store)) { transport in
                    let recording = try! BtsnoopRecorder(wrapping: transport, path: capture)
                    recorder.withLock { $0 = recording }
                    return recording
                }
                defer { host.close() }
                let address = try #require(BluetoothAddress(peer.address))
                let bumblesHash = try #require(peer.ready["hash"] as? String)

                // First link: paired, discovered, kept with the bond.
                let first = try await host.central.connect(to: address, addressType: .random, timeout: .seconds(20))
                _ = try await first.pair()
                let database = try await first.discoverDatabase()
                #expect(!first.databaseFromCache)
                let kept = try #require(store.bonds().first?.peerDatabase)
                #expect(kept.database == database)
                // The hash Bumble serves is the one Bumble computes, and the one Strobe computes
                // over what it discovered.
                let hash = try #require(Self.hex(kept.hash))
                #expect(bumblesHash == hash)
                #expect(Self.hex(GATTDatabaseHash.hash(database.hashAttributes())) == hash)
                _ = try await first.disconnect()

                // Second link: the hash is read, the database taken from the bond.
                let second = try await host.central.connect(to: address, addressType: .random, timeout: .seconds(20))
                #expect(try await second.discoverDatabase() == database)
                #expect(second.databaseFromCache)
                try await second.encrypt()
                _ = try await second.disconnect()
                let newHash = try #require(try await peer.event("SERVICE_ADDED")["hash"] as? String)

                // Third link: a new hash, so discovery again, the new service found and kept.
                let third = try await host.central.connect(to: address, addressType: .random, timeout: .seconds(20))
                let changed = try await third.discoverDatabase()
                #expect(!third.databaseFromCache)
                #expect(changed.service(BluetoothUUID("5EC00003-5EC0-4E00-8000-00805F9B34FB")) != nil)
                try await third.encrypt()
                await third.bondUpdatesWritten()
                #expect(Self.hex(store.bonds().first?.peerDatabase?.hash) == newHash)
                _ = try await third.disconnect()
                try recorder.withLock { $0 }?.finishRecording()

                let links = try await Self.requestsPerLink(capture)
                #expect(links.count == 3)
                let readByGroupType = "0x10", readByType = "0x08"
                let hashReads = { (link: [Frame]) in link.filter { $0.opcode == readByType && $0.uuid == "0x2b2a" }.count }
                #expect(links[0].contains { $0.opcode == readByGroupType })
                #expect(hashReads(links[1]) == 1, "\(links[1].map(\.opcode))")
                #expect(!links[1].contains { $0.opcode == readByGroupType }, "\(links[1].map(\.opcode))")
                #expect(!links[1].contains { $0.opcode == readByType && $0.uuid == "0x2803" }, "no characteristic discovery")
                #expect(hashReads(links[2]) >= 1 && links[2].contains { $0.opcode == readByGroupType })
            }
        }
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
