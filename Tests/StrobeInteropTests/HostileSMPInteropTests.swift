import Foundation
import Strobe
import Synchronization
import StrobeTestSupport
import Testing

extension RootCanalTests {
    /// Strobe's Security Manager tried as an attacker would, on RootCanal: a peer of our own that
    /// speaks raw SMP (`hostile_smp_peer.py`), and Bumble's Security Manager told to claim
    /// identities that are not its own (`smp_peer.py --claim-identity`).
    struct HostileSMPInteropTests {
        typealias User = SecurityInteropTests.User
        typealias Setup = SecurityBondInteropTests.Setup

        static func hostile(_ rootCanal: RootCanal, _ arguments: [String]) async throws -> BumbleSMPPeer {
            try await BumbleSMPPeer(on: rootCanal, script: "hostile_smp_peer.py", arguments: arguments)
        }

        /// A Bumble device Strobe paired with and bonded to, and the bond Strobe stored.
        static func bondedDevice(_ setup: Setup) async throws -> (BumbleSMPPeer, Bond) {
            let device = try await setup.peripheral([])
            let link = try await setup.connect(device)
            _ = try await link.pair()
            _ = try await link.disconnect()
            return (device, try #require(setup.store.bonds().first))
        }

        /// CVE-2020-26558: the peer sends Strobe's public key back, or its mirror (X, p - Y).
        /// Just Works, Numeric Comparison and Passkey Entry (Strobe's user types, the peer
        /// "shows") each end at the key with DHKey Check Failed: no confirm value ever leaves.
        @Test(arguments: ["reflect", "reflect-mirrored"])
        func aReflectedPublicKeyFailsEveryMethodBeforeAnyRound(attack: String) async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, nil)
                let peer = try await Self.hostile(rootCanal, ["--attack", attack, "--io-capability", "display-yes-no"])
                let users: [(User?, String)] = [(nil, "Just Works"), (User(.displayYesNo), "Numeric Comparison"),
                                                (User(.keyboardOnly, typed: 123_456), "Passkey Entry")]
                for (number, (user, method)) in users.enumerated() {
                    setup.host.central.security.delegate = user
                    let connection = try await setup.connect(peer)
                    let error = await #expect(throws: StrobeError.self, "\(method)") { try await connection.pair() }?.securityError
                    guard case .pairing(.failedLocally(.dhKeyCheckFailed, _))? = error else {
                        Issue.record("\(method): \(String(describing: error))")
                        continue
                    }
                    let failed = try await peer.event("PAIRING_FAILED", connection: number + 1)
                    #expect((failed["reason"] as? Int) == Int(SMPPairingFailedReason.dhKeyCheckFailed.rawValue), "\(method)")
                    _ = try await connection.disconnect()
                }
                // Strobe sent Pairing Request, Public Key and Pairing Failed on each link: never a
                // Pairing Confirm (0x03) or Pairing Random (0x04).
                let codes = peer.output.lines.filter { $0.hasPrefix("RECEIVED ") }.compactMap { line -> Int? in
                    guard let start = line.firstIndex(of: "{"),
                          let object = try? JSONSerialization.jsonObject(with: Data(line[start...].utf8)) as? [String: Any] else { return nil }
                    return object["code"] as? Int
                }
                #expect(codes == [0x01, 0x0C, 0x05, 0x01, 0x0C, 0x05, 0x01, 0x0C, 0x05])
                #expect(setup.store.bonds().isEmpty)
                await setup.stop()
            }
        }

        /// A peer that connects from its own static address and claims another device's identity
        /// is kept under the address it connected from; the other device's bond is unchanged.
        @Test func aPeerClaimingAnotherDevicesIdentityCannotTakeItsBond() async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, nil)
                let (device, stored) = try await Self.bondedDevice(setup)
                #expect(stored.peer.address == BluetoothAddress(device.address))
                #expect(stored.peerIRK != nil)

                let impostor = try await setup.peripheral(["--name", "Bumble-Evil", "--address", "F1:F2:F3:F4:F5:A1",
                                                           "--claim-identity", device.address])
                let second = try await setup.connect(impostor)
                let result = try await second.pair()
                #expect(result.peerIdentity?.address == BluetoothAddress(device.address), "the impostor did claim it")
                _ = try await second.disconnect()
                let bonds = setup.store.bonds()
                #expect(bonds.count == 2)
                #expect(bonds.first { $0.peer.address == stored.peer.address } == stored, "the device's bond changed")
                let impostorBond = try #require(bonds.first { $0.peer.address == BluetoothAddress("F1:F2:F3:F4:F5:A1") })
                #expect(impostorBond.peerIRK == nil)
                #expect(!impostorBond.keys.contains("peer IRK"))
                await setup.stop()
            }
        }

        /// A peer on a resolvable private address that its own IRK resolves, claiming the identity
        /// of a device Strobe has a bond with: the claim rests only on an IRK the impostor made,
        /// so it may not replace the stored bond (whose IRK differs) without the app's word; the
        /// link is ended and the device's bond is unchanged.
        @Test func aPrivateAddressClaimingABondedIdentityWithAnotherIRKIsRefused() async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, nil)
                let (device, stored) = try await Self.bondedDevice(setup)

                let impostor = try await setup.peripheral(["--name", "Bumble-Evil", "--address", "F1:F2:F3:F4:F5:A2", "--privacy",
                                                           "--claim-identity", device.address])
                _ = impostor
                let second = try await setup.host.central.connect(name: "Bumble-Evil", timeout: .seconds(20))
                #expect(ResolvablePrivateAddress.isResolvable(second.peerAddress, type: second.peerAddressType))
                let error = await #expect(throws: StrobeError.self) { try await second.pair() }?.securityError
                guard case .bondReplacementRefused(let peer, let reason)? = error else {
                    Issue.record("\(String(describing: error))")
                    return
                }
                #expect(peer == stored.peer && reason.contains("IRK"), "\(reason)")
                #expect(setup.store.bonds() == [stored], "the device's bond changed")
                #expect(await second.disconnected() == .connectionTerminatedByLocalHost)
                await setup.stop()
            }
        }

        /// The same with Strobe as the peripheral: Bumble's central connects from its static
        /// address and claims the identity of a device Strobe has a bond with.
        @Test func aCentralClaimingAnotherDevicesIdentityCannotTakeItsBond() async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, nil)
                let victim = Bond(
                    peer: IdentityAddress(address: BluetoothAddress("C4:11:22:33:44:55")!, isRandom: true), role: .peripheral,
                    securityLevel: .unauthenticated, secureConnections: true, longTermKey: LongTermKey(value: Array(0x10..<0x20)),
                    peerIRK: IdentityResolvingKey(value: Array(0x30..<0x40)), keys: ["LTK", "peer IRK", "peer identity address"])
                setup.store.save(victim)
                let peripheral = Peripheral(central: setup.host.central, database: GATTAttributeDatabase())
                var incoming = peripheral.incomingConnections().makeAsyncIterator()
                try await peripheral.startAdvertising(name: "Strobe-SMP")
                let impostor = try await BumbleSMPPeer(on: rootCanal, arguments: [
                    "--role", "central", "--pair", "--peer", "\(setup.host.controller.info!.address)",
                    "--claim-identity", "\(victim.peer.address)"])
                let connection = try #require(await incoming.next())
                _ = try await impostor.event("PAIRED")
                let result = try await connection.pairingCompleted()
                #expect(result.peerIdentity == victim.peer, "the impostor did claim it")
                let bonds = setup.store.bonds()
                #expect(bonds.count == 2)
                #expect(bonds.first { $0.peer == victim.peer } == victim, "the device's bond changed")
                let impostorBond = try #require(bonds.first { $0.peer.address == connection.peerAddress })
                #expect(impostorBond.peerIRK == nil)
                await setup.stop()
            }
        }

        /// Identities that cannot be anyone's are refused: the pairing fails with Invalid
        /// Parameters on both sides, and nothing is stored.
        @Test(arguments: [("00:00:00:00:00:00", "public"), ("5A:11:22:33:44:55", "random")])
        func anIdentityThatCannotBeOneIsRefused(claim: String, type: String) async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, nil)
                let peer = try await setup.peripheral(["--claim-identity", claim, "--identity-address-type", type])
                let connection = try await setup.connect(peer)
                let error = await #expect(throws: StrobeError.self) { try await connection.pair() }?.securityError
                guard case .pairing(.failedLocally(.invalidParameters, let detail))? = error else {
                    Issue.record("\(String(describing: error))")
                    return
                }
                #expect(detail.contains(claim))
                let failed = try await peer.event("PAIRING_FAILED")
                #expect((failed["reason"] as? Int) == Int(SMPPairingFailedReason.invalidParameters.rawValue))
                #expect(setup.store.bonds().isEmpty)
                await setup.stop()
            }
        }

        /// A stock Bumble peer connects from its static random address and distributes its
        /// controller's public address as identity. Its bond is kept under the address it uses,
        /// so the next run finds it and encrypts with it: no second pairing on the peer.
        @Test func aStockBumblePeerIsFoundAgainWithItsBondOnTheNextRun() async throws {
            try await RootCanal.with { rootCanal in
                let scratch = try ScratchDirectory("strobe-bonds")
                defer { scratch.remove() }
                let file = scratch.path("bonds.json")
                let peer = try await BumbleSMPPeer(on: rootCanal, arguments: ["--role", "peripheral", "--identity-address-type", "stock"])
                let address = try #require(BluetoothAddress(peer.address))

                // Each run is a new controller on RootCanal (a new public address): Strobe keeps
                // one static address across runs, as a device without a public one would.
                let own = Central.Configuration(ownAddress: .staticRandom(BluetoothAddress("C7:11:22:33:44:55")!))
                let firstRun = try await HostUnderTest(transport: rootCanal.transport, configuration: own,
                                                       security: SecurityManager(store: FileBondStore(path: file)))
                let first = try await firstRun.central.connect(to: address, addressType: .random, timeout: .seconds(20))
                let result = try await first.pair()
                #expect(result.peerIdentity != nil && result.peerIdentity?.address != address, "the peer claimed its public address")
                _ = try await peer.event("PAIRED")
                _ = try await first.disconnect()
                firstRun.close()
                #expect(try FileBondStore(path: file).bonds().map(\.peer.address) == [address])

                let nextRun = try await HostUnderTest(transport: rootCanal.transport, configuration: own,
                                                      security: SecurityManager(store: FileBondStore(path: file)))
                defer { nextRun.close() }
                let second = try await nextRun.central.connect(to: address, addressType: .random, timeout: .seconds(20))
                #expect(second.bond != nil)
                _ = try await second.secure(to: .unauthenticated)
                #expect(second.pairingResult == nil)
                #expect((try await peer.event("ENCRYPTED", connection: 2))["encrypted"] as? Bool == true)
                #expect(peer.output.lines.filter { $0.hasPrefix("PAIRED") }.count == 1)
                _ = try await second.disconnect()
            }
        }

        /// Pairing again with weaker keys (LE legacy over LE Secure Connections) keeps the stored
        /// bond unless the app's delegate agrees.
        @Test func aWeakerPairingDoesNotReplaceAStrongerBondUnlessTheAppAgrees() async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, nil)
                let peer = try await setup.peripheral([])
                let first = try await setup.connect(peer)
                _ = try await first.pair()
                _ = try await first.disconnect()
                let stored = try #require(setup.store.bonds().first)
                #expect(stored.secureConnections)

                setup.host.central.security.configuration.secureConnections = false
                let second = try await setup.connect(peer)
                let error = await #expect(throws: StrobeError.self) { try await second.pair() }?.securityError
                #expect(error == .bondReplacementRefused(peer: stored.peer, reason: "LE legacy pairing where the bond has LE Secure Connections"))
                #expect(setup.store.bonds() == [stored])
                // The link encrypted with the refused keys is ended, its level never reported.
                #expect(await second.disconnected() == .connectionTerminatedByLocalHost)
                #expect(second.pairingResult == nil && second.securityLevel == .none)

                setup.host.central.security.delegate = Agreeing()
                let third = try await setup.connect(peer)
                let result = try await third.pair()
                #expect(!result.secureConnections)
                #expect(setup.store.bonds().first?.secureConnections == false)
                _ = try await third.disconnect()
                await setup.stop()
            }
        }

        /// A store that cannot keep a bond stops pairing before any SMP PDU: `strobe pair` fails
        /// before it connects, saying which file and why, and `pair()` before its first PDU.
        @Test func aStoreThatCannotKeepTheBondFailsBeforeAnySMP() async throws {
            try await RootCanal.with { rootCanal in
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-stores-\(UUID().uuidString)").path
                try FileManager.default.createDirectory(atPath: directory + "/folder.json", withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                try Data("{\"version\": 1, \"bonds\": [{\"peer\": 7}]".utf8).write(to: URL(fileURLWithPath: directory + "/corrupt.json"))
                try Data().write(to: URL(fileURLWithPath: directory + "/file"))
                #expect(mkfifo(directory + "/fifo.json", 0o600) == 0)
                let peer = try await Self.hostile(rootCanal, ["--attack", "bad-response"])
                let cases: [(String, String)] = [
                    ("corrupt.json", "is corrupt"), ("folder.json", "is a directory, not a regular file"),
                    ("fifo.json", "is a FIFO, not a regular file"), ("file/bonds.json", "is not a directory"),
                ]
                for (name, said) in cases {
                    let result = try await StrobeCommand.run(
                        ["--transport", rootCanal.transport, "pair", "--address", peer.address, "--random", "--bonds", directory + "/" + name])
                    #expect(result.status == 1, "\(name)")
                    #expect(result.stderr.contains(directory + "/" + name) && result.stderr.contains(said), "\(result.stderr)")
                    #expect(!result.stderr.contains("NSCocoaErrorDomain"))
                }
                #expect(!peer.has("CONNECTED"), "strobe pair connected: \(peer.output.lines)")

                let host = try await HostUnderTest(
                    transport: rootCanal.transport, security: SecurityManager(store: FileBondStore(path: directory + "/corrupt.json")))
                defer { host.close() }
                let connection = try await host.central.connect(to: BluetoothAddress(peer.address)!, addressType: .random, timeout: .seconds(20))
                let error = await #expect(throws: StrobeError.self) { try await connection.pair() }?.securityError
                guard case .bondStore(.corrupt(let path, _))? = error else {
                    Issue.record("\(String(describing: error))")
                    return
                }
                #expect(path == directory + "/corrupt.json")
                _ = try await connection.disconnect()
                _ = try await peer.event("DISCONNECTED", connection: 1)
                #expect(!peer.has("RECEIVED"), "an SMP PDU left: \(peer.output.lines)")
            }
        }

        /// An app that agrees to replace a bond with a weaker one.
        struct Agreeing: PairingDelegate {
            var ioCapability: SMPIOCapability { .noInputNoOutput }
            func confirmNumber(_ number: UInt32, with peer: BluetoothAddress) async -> Bool { true }
            func displayPasskey(_ passkey: UInt32, to peer: BluetoothAddress) async {}
            func enterPasskey(for peer: BluetoothAddress) async -> UInt32? { nil }
            func replaceBond(_ existing: Bond, with new: Bond, reason: String) async -> Bool { true }
        }

        /// Strobe fails each of 100 pairings (the peer offers a 5-octet key) and disconnects at
        /// once: the peer hears every Pairing Failed before the link ends.
        @Test func pairingFailedReachesThePeerInEveryFailedPairing() async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, nil)
                let peer = try await Self.hostile(rootCanal, ["--attack", "bad-response"])
                for round in 1...100 {
                    let connection = try await setup.connect(peer)
                    let error = await #expect(throws: StrobeError.self) { try await connection.pair() }
                    #expect(error?.securityError != nil, "\(String(describing: error))")
                    _ = try await connection.disconnect()
                    _ = try await peer.event("DISCONNECTED", connection: round)
                }
                let failed = peer.output.lines.filter { $0.hasPrefix("PAIRING_FAILED ") }
                #expect(failed.count == 100)
                #expect(Set(failed.map { $0.contains("\"reason\": \(SMPPairingFailedReason.invalidParameters.rawValue)")
                    || $0.contains("\"reason\": \(SMPPairingFailedReason.encryptionKeySize.rawValue)") }) == [true])
                await setup.stop()
            }
        }
    }
}
