import Foundation
import Strobe
import StrobeBase
import Synchronization
import Testing

/// The tests on RootCanal with Bumble peers: each starts a RootCanal and Python processes, so
/// `RootCanal.with` lets only a few run at once. One limit against a hang for them all, since a
/// test's time includes its wait for a world.
@Suite(.timeLimit(.minutes(8))) enum RootCanalTests {}

extension RootCanalTests {
    /// Strobe's Security Manager against Google Bumble's (its host, from the project's Bumble venv),
    /// on RootCanal, whose link layer encrypts only when both hosts hold the same key. Each test has
    /// its own RootCanal (its own air).
    struct SecurityInteropTests {
        /// The user at Strobe's end: types what Bumble shows (or a fixed passkey), confirms numbers,
        /// reports the passkeys it shows.
        final class User: PairingDelegate {
            let ioCapability: SMPIOCapability
            let confirms: Bool
            let typed: UInt32?
            /// The Bumble peer once started, and who waits for it: a central Bumble pairs as soon
            /// as it is up, so Strobe can ask for the passkey before the test has its handle.
            private let peer = Lock<(started: BumbleSMPPeer?, waiting: [CheckedContinuation<BumbleSMPPeer, Never>])>((nil, []))
            let shown: AsyncStream<UInt32>
            private let show: AsyncStream<UInt32>.Continuation
            let compared = Lock<UInt32?>(nil)

            init(_ io: SMPIOCapability, confirms: Bool = true, typed: UInt32? = nil) {
                ioCapability = io
                self.confirms = confirms
                self.typed = typed
                (shown, show) = AsyncStream<UInt32>.makeStream()
            }

            func peerStarted(_ started: BumbleSMPPeer) {
                let waiting = peer.withLock { peer in
                    peer.started = started
                    defer { peer.waiting = [] }
                    return peer.waiting
                }
                for waiter in waiting { waiter.resume(returning: started) }
            }

            /// The peer, once `peerStarted` has been called (the suite's time limit bounds the wait).
            func startedPeer() async -> BumbleSMPPeer {
                await withCheckedContinuation { continuation in
                    let started = peer.withLock { peer -> BumbleSMPPeer? in
                        if let started = peer.started { return started }
                        peer.waiting.append(continuation)
                        return nil
                    }
                    if let started { continuation.resume(returning: started) }
                }
            }

            func confirmNumber(_ number: UInt32, with peer: BluetoothAddress) async -> Bool {
                compared.withLock { $0 = number }
                return confirms
            }

            func displayPasskey(_ passkey: UInt32, to peer: BluetoothAddress) async { show.yield(passkey) }

            func enterPasskey(for address: BluetoothAddress) async -> UInt32? {
                if let typed { return typed }
                return try? await startedPeer().number("PASSKEY")
            }
        }

        struct Case: CustomTestStringConvertible, Sendable {
            var strobe: SMPIOCapability
            var bumble: String
            var legacy = false
            var method: SMPPairingMethod
            var level: SMPSecurityLevel
            /// Both users type this (KeyboardOnly on both sides).
            var bothType: UInt32?
            var testDescription: String { "\(legacy ? "legacy" : "SC") Strobe \(strobe) / Bumble \(bumble) -> \(method)" }

            var bumbleArguments: [String] {
                ["--io-capability", bumble] + (strobe == .noInputNoOutput && bumble == "no-input-no-output" ? [] : ["--mitm"])
                    + (legacy ? ["--legacy"] : [])
            }
        }

        static let central: [Case] = [
            Case(strobe: .noInputNoOutput, bumble: "no-input-no-output", method: .justWorks, level: .unauthenticated),
            Case(strobe: .displayYesNo, bumble: "display-yes-no", method: .numericComparison, level: .secureConnections),
            Case(strobe: .keyboardOnly, bumble: "display-only", method: .passkeyEntry(initiatorDisplays: false, responderDisplays: true),
                 level: .secureConnections),
            Case(strobe: .displayOnly, bumble: "keyboard-only", method: .passkeyEntry(initiatorDisplays: true, responderDisplays: false),
                 level: .secureConnections),
            Case(strobe: .keyboardOnly, bumble: "keyboard-only", method: .passkeyEntry(initiatorDisplays: false, responderDisplays: false),
                 level: .secureConnections, bothType: 314_159),
            Case(strobe: .noInputNoOutput, bumble: "no-input-no-output", legacy: true, method: .justWorks, level: .unauthenticated),
            Case(strobe: .keyboardOnly, bumble: "display-only", legacy: true,
                 method: .passkeyEntry(initiatorDisplays: false, responderDisplays: true), level: .authenticated),
            Case(strobe: .keyboardDisplay, bumble: "keyboard-display", legacy: true,
                 method: .passkeyEntry(initiatorDisplays: true, responderDisplays: false), level: .authenticated),
        ]

        static let peripheral: [Case] = [
            Case(strobe: .noInputNoOutput, bumble: "no-input-no-output", method: .justWorks, level: .unauthenticated),
            Case(strobe: .displayYesNo, bumble: "keyboard-display", method: .numericComparison, level: .secureConnections),
            Case(strobe: .displayOnly, bumble: "keyboard-only", method: .passkeyEntry(initiatorDisplays: false, responderDisplays: true),
                 level: .secureConnections),
            Case(strobe: .keyboardOnly, bumble: "display-yes-no", method: .passkeyEntry(initiatorDisplays: true, responderDisplays: false),
                 level: .secureConnections),
            Case(strobe: .noInputNoOutput, bumble: "no-input-no-output", legacy: true, method: .justWorks, level: .unauthenticated),
            Case(strobe: .displayOnly, bumble: "keyboard-only", legacy: true,
                 method: .passkeyEntry(initiatorDisplays: false, responderDisplays: true), level: .authenticated),
        ]

        static func manager(_ c: Case, user: User, store: any BondStore) -> SecurityManager {
            SecurityManager(configuration: .init(secureConnections: !c.legacy), store: store,
                            delegate: c.strobe == .noInputNoOutput ? nil : user)
        }

        /// Plays the user's part at Bumble's end for this case.
        static func playBumblesUser(_ c: Case, bumble: BumbleSMPPeer, user: User) -> Task<Void, any Error> {
            Task {
                guard case .passkeyEntry(let initiatorDisplays, let responderDisplays) = c.method else { return }
                if let both = c.bothType {
                    try await bumble.typePasskey(both)
                } else if initiatorDisplays || responderDisplays, c.strobe == .displayOnly || c.strobe == .keyboardDisplay
                            && c.bumble != "display-only" {
                    // Strobe shows, Bumble types.
                    for await passkey in user.shown {
                        try await bumble.typePasskey(passkey)
                        return
                    }
                }
            }
        }

        /// The key Strobe stored is one Bumble holds: the LTK for LE Secure Connections, the LTK the
        /// peripheral distributed for legacy pairing.
        static func expectMatchingKeys(_ bond: Bond?, _ paired: [String: Any]) {
            let ours = bond?.longTermKey.map { $0.value.map { String(format: "%02x", $0) }.joined() }
            let theirs = ["ltk", "ltk_central", "ltk_peripheral"].compactMap { paired[$0] as? String }
            #expect(ours != nil)
            #expect(theirs.contains(ours ?? "-"), "Strobe's key is none of Bumble's \(theirs)")
        }

        @Test(arguments: central)
        func strobeCentralPairs(_ c: Case) async throws {
            try await RootCanal.with { rootCanal in
                let bumble = try await BumbleSMPPeer(on: rootCanal, arguments: ["--role", "peripheral"] + c.bumbleArguments)
                let user = User(c.strobe, typed: c.bothType)
                user.peerStarted(bumble)
                let store = InMemoryBondStore()
                let host = try await HostUnderTest(transport: rootCanal.transport, security: Self.manager(c, user: user, store: store))
                defer { host.close() }
                let connection = try await host.central.connect(to: BluetoothAddress(bumble.address)!, addressType: .random, timeout: .seconds(20))
                let playing = Self.playBumblesUser(c, bumble: bumble, user: user)
                defer { playing.cancel() }
                let result = try await connection.pair()
                let paired = try await bumble.event("PAIRED")
                #expect(result.method == c.method)
                #expect(result.secureConnections == !c.legacy)
                #expect(result.securityLevel == c.level)
                #expect(connection.securityLevel == c.level)
                #expect(result.bonded)
                #expect((try await bumble.event("ENCRYPTED", connection: 1))["encrypted"] as? Bool == true)
                #expect((paired["authenticated"] as? Bool) == c.method.isAuthenticated)
                let bond = store.bonds().first
                #expect(bond?.peer.address == BluetoothAddress(bumble.address))
                Self.expectMatchingKeys(bond, paired)
                if c.method == .numericComparison {
                    #expect(user.compared.withLock { $0 } == (try await bumble.number("NUMBER")))
                }
                _ = try await connection.disconnect()
            }
        }

        @Test(arguments: peripheral)
        func strobePeripheralPairs(_ c: Case) async throws {
            try await RootCanal.with { rootCanal in
                let user = User(c.strobe)
                let store = InMemoryBondStore()
                let host = try await HostUnderTest(transport: rootCanal.transport, security: Self.manager(c, user: user, store: store))
                defer { host.close() }
                let peripheral = Peripheral(central: host.central, database: GATTAttributeDatabase())
                let incoming = peripheral.incomingConnections()
                try await peripheral.startAdvertising(name: "Strobe-SMP")
                let bumble = try await BumbleSMPPeer(
                    on: rootCanal, arguments: ["--role", "central", "--pair", "--peer", "\(host.controller.info!.address)"] + c.bumbleArguments)
                user.peerStarted(bumble)
                var iterator = incoming.makeAsyncIterator()
                let connection = try #require(await iterator.next())
                let playing = Self.playBumblesUser(c, bumble: bumble, user: user)
                defer { playing.cancel() }
                let paired = try await bumble.event("PAIRED")
                let result = try await connection.pairingCompleted()
                #expect(result.method == c.method)
                #expect(result.securityLevel == c.level)
                #expect(connection.securityLevel == c.level)
                #expect(result.bonded)
                let bond = try #require(store.bonds().first)
                #expect(bond.role == .peripheral)
                Self.expectMatchingKeys(bond, paired)
            }
        }
    }

    /// Pairing that must fail, and bonds used (or lost) on a later connection, against Bumble on
    /// RootCanal.
    struct SecurityBondInteropTests {
        typealias User = SecurityInteropTests.User

        struct Setup {
            let rootCanal: RootCanal
            let host: HostUnderTest
            let store: InMemoryBondStore

            init(_ rootCanal: RootCanal, _ user: User?, legacy: Bool = false) async throws {
                self.rootCanal = rootCanal
                store = InMemoryBondStore()
                host = try await HostUnderTest(
                    transport: rootCanal.transport,
                    security: SecurityManager(configuration: .init(secureConnections: !legacy), store: store, delegate: user))
            }

            func peripheral(_ arguments: [String]) async throws -> BumbleSMPPeer {
                try await BumbleSMPPeer(on: rootCanal, arguments: ["--role", "peripheral"] + arguments)
            }

            func connect(_ bumble: BumbleSMPPeer) async throws -> LEConnection {
                try await host.central.connect(to: BluetoothAddress(bumble.address)!, addressType: .random, timeout: .seconds(20))
            }

            func stop() async {
                host.close()
            }
        }

        @Test(arguments: [false, true])
        func wrongPasskeyFailsOnBothSidesAndBondsNothing(legacy: Bool) async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, User(.keyboardOnly, typed: 1), legacy: legacy)
                let bumble = try await setup.peripheral(["--io-capability", "display-only", "--mitm"] + (legacy ? ["--legacy"] : []))
                let connection = try await setup.connect(bumble)
                let error = await #expect(throws: StrobeError.self) { try await connection.pair() }?.securityError
                let failed = try await bumble.event("PAIRING_FAILED")
                #expect(error == .pairing(.failedLocally(.confirmValueFailed, detail: "the peer's random value does not match its confirm value"))
                        || error == .pairing(.failedByPeer(.confirmValueFailed))
                        || error == .pairing(.failedLocally(.confirmValueFailed, detail: "the peer's nonce does not match its confirm value")))
                #expect((failed["reason"] as? Int) == Int(SMPPairingFailedReason.confirmValueFailed.rawValue))
                #expect(setup.store.bonds().isEmpty)
                #expect(connection.securityLevel == .none)
                #expect(!bumble.has("PAIRED"))
                await bumble.stop()
                await setup.stop()
            }
        }

        @Test func numberRejectedOnStrobesSideFailsOnBoth() async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, User(.displayYesNo, confirms: false))
                let bumble = try await setup.peripheral(["--io-capability", "display-yes-no", "--mitm"])
                let connection = try await setup.connect(bumble)
                let error = await #expect(throws: StrobeError.self) { try await connection.pair() }?.securityError
                #expect(error == .pairing(.failedLocally(.numericComparisonFailed, detail: "the user did not confirm the number")))
                let failed = try await bumble.event("PAIRING_FAILED")
                #expect((failed["reason"] as? Int) == Int(SMPPairingFailedReason.numericComparisonFailed.rawValue))
                #expect(setup.store.bonds().isEmpty)
                await bumble.stop()
                await setup.stop()
            }
        }

        @Test func numberRejectedOnBumblesSideFailsOnBoth() async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, User(.displayYesNo))
                let bumble = try await setup.peripheral(["--io-capability", "display-yes-no", "--mitm", "--reject-number"])
                let connection = try await setup.connect(bumble)
                let error = await #expect(throws: StrobeError.self) { try await connection.pair() }?.securityError
                guard case .pairing(.failedByPeer)? = error else {
                    Issue.record("expected the peer's Pairing Failed, got \(String(describing: error))")
                    return
                }
                _ = try await bumble.event("PAIRING_FAILED")
                #expect(setup.store.bonds().isEmpty)
                await bumble.stop()
                await setup.stop()
            }
        }

        /// Pair, disconnect, connect again: LE Enable Encryption with the stored key, no pairing.
        @Test(arguments: [false, true])
        func reconnectEncryptsWithTheStoredKey(legacy: Bool) async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, nil, legacy: legacy)
                let bumble = try await setup.peripheral(legacy ? ["--legacy"] : [])
                let first = try await setup.connect(bumble)
                let paired = try await first.pair()
                _ = try await bumble.event("PAIRED")
                _ = try await first.disconnect()
                _ = try await bumble.event("DISCONNECTED")

                let second = try await setup.connect(bumble)
                #expect(second.securityLevel == .none)
                #expect(second.bond != nil)
                let level = try await second.encrypt()
                #expect(level == paired.securityLevel)
                #expect(second.securityLevel == paired.securityLevel)
                #expect(second.pairingResult == nil)
                #expect((try await bumble.event("ENCRYPTED", connection: 2))["encrypted"] as? Bool == true)
                #expect(bumble.output.lines.filter { $0.hasPrefix("PAIRED") }.count == 1)
                _ = try await second.disconnect()
                await bumble.stop()
                await setup.stop()
            }
        }

        /// The peripheral lost the bond: its host refuses the LTK request and encrypting with the old
        /// key fails. The spec's link layer answers that with PIN or Key Missing (0x06); RootCanal
        /// 1.10 reports Authentication Failure (0x05). Strobe reports the status the controller gives.
        @Test func bondDeletedOnThePeerFailsEncryption() async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, nil)
                let bumble = try await setup.peripheral([])
                let first = try await setup.connect(bumble)
                _ = try await first.pair()
                _ = try await bumble.event("PAIRED")
                _ = try await first.disconnect()
                await bumble.stop()

                // The same device, started again with an empty key store.
                let forgetful = try await setup.peripheral([])
                let second = try await setup.connect(forgetful)
                let error = await #expect(throws: StrobeError.self) { try await second.encrypt() }?.securityError
                #expect(error == .encryptionFailed(address: second.peerAddress, status: .pinOrKeyMissing)
                        || error == .encryptionFailed(address: second.peerAddress, status: .authenticationFailure))
                #expect(error?.description.contains("pair again") == true)
                #expect(second.securityLevel == .none)
                await forgetful.stop()
                await setup.stop()
            }
        }

        /// Security Request both ways: Strobe's peripheral asks and Bumble's central pairs; Bumble's
        /// peripheral asks and Strobe's central pairs on its own.
        @Test func aSecurityRequestMakesTheCentralPair() async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, nil)
                let peripheral = Peripheral(central: setup.host.central, database: GATTAttributeDatabase())
                var connections = peripheral.incomingConnections().makeAsyncIterator()
                try await peripheral.startAdvertising(name: "Strobe-SMP")
                let central = try await BumbleSMPPeer(
                    on: rootCanal, arguments: ["--role", "central", "--peer", "\(setup.host.controller.info!.address)"])
                let incoming = try #require(await connections.next())
                // Bumble listens for Security Request once its connect call has returned.
                _ = try await central.event("CONNECTED")
                let asked = try await incoming.pair()
                _ = try await central.event("SECURITY_REQUEST")
                _ = try await central.event("PAIRED")
                #expect(asked.bonded && incoming.securityLevel == .unauthenticated)
                await central.stop()
                try await peripheral.stopAdvertising()
                _ = await incoming.disconnected()

                let asking = try await setup.peripheral(["--request-security", "--name", "Bumble-Asks"])
                let outgoing = try await setup.connect(asking)
                let result = try await outgoing.pairingCompleted()
                _ = try await asking.event("PAIRED")
                #expect(result.bonded && outgoing.securityLevel == .unauthenticated)
                #expect(setup.store.bonds().contains { $0.peer.address == BluetoothAddress(asking.address) && $0.role == .central })
                await setup.stop()
            }
        }

        /// A central that missed the Security Request (Bumble hears one only once its connect call
        /// has returned; here it ignores the first) is asked again, and pairs on the second.
        @Test func aMissedSecurityRequestIsAskedAgain() async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, nil)
                let peripheral = Peripheral(central: setup.host.central, database: GATTAttributeDatabase())
                var connections = peripheral.incomingConnections().makeAsyncIterator()
                try await peripheral.startAdvertising(name: "Strobe-SMP")
                let central = try await BumbleSMPPeer(on: rootCanal, arguments: [
                    "--role", "central", "--peer", "\(setup.host.controller.info!.address)", "--ignore-security-requests", "1"])
                let incoming = try #require(await connections.next())
                _ = try await central.event("CONNECTED")
                let result = try await incoming.pair()
                _ = try await central.event("PAIRED")
                let requests = central.output.lines.filter { $0.hasPrefix("SECURITY_REQUEST ") }
                #expect(requests.count == 2)
                #expect(requests.first?.contains("\"ignored\": true") == true && requests.last?.contains("\"ignored\": false") == true)
                #expect(result.bonded && incoming.securityLevel == .unauthenticated)
                await central.stop()
                try await peripheral.stopAdvertising()
                await setup.stop()
            }
        }

        /// Strobe as the peripheral: Bumble's central pairs, comes back and encrypts with its key;
        /// Strobe answers LE Long Term Key Request from the bond. Forgotten, the same request gets a
        /// negative reply and Bumble's encryption fails.
        @Test func peripheralAnswersTheLTKRequestFromItsBondAndRefusesOnceForgotten() async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await Setup(rootCanal, nil)
                let peripheral = Peripheral(central: setup.host.central, database: GATTAttributeDatabase())
                let incoming = peripheral.incomingConnections()
                var connections = incoming.makeAsyncIterator()
                try await peripheral.startAdvertising(name: "Strobe-SMP")
                let keystore = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-bumble-keys-\(UUID().uuidString).json")
                defer { try? FileManager.default.removeItem(at: keystore) }
                let central = ["--role", "central", "--peer", "\(setup.host.controller.info!.address)", "--keystore", keystore.path]

                let pairing = try await BumbleSMPPeer(on: setup.rootCanal, arguments: central + ["--pair"])
                let first = try #require(await connections.next())
                let result = try await first.pairingCompleted()
                _ = try await pairing.event("PAIRED")
                await pairing.stop()
                _ = await first.disconnected()

                let returning = try await BumbleSMPPeer(on: setup.rootCanal, arguments: central + ["--encrypt"])
                let second = try #require(await connections.next())
                // The level when the test first looks (none, unless Bumble's encryption, which it
                // starts as it connects, has already ended by then), then the bond's, with no
                // pairing; within a deadline.
                let expected = result.securityLevel
                let levels = try await withTimeout(.seconds(60), clock: ContinuousClock()) {
                    var seen: [SMPSecurityLevel] = []
                    for await level in second.securityLevelChanges() {
                        seen.append(level)
                        if level == expected { break }
                    }
                    return seen
                }
                #expect(levels == [SMPSecurityLevel.none, expected] || levels == [expected], "\(levels)")
                _ = try await returning.event("ENCRYPTED")
                #expect(!returning.has("PAIRED"))
                await returning.stop()
                _ = await second.disconnected()

                #expect(setup.store.removeBond(for: result.peerIdentity?.address ?? first.peerAddress))
                let refused = try await BumbleSMPPeer(on: setup.rootCanal, arguments: central + ["--encrypt"])
                let third = try #require(await connections.next())
                let failure = try await refused.event("ENCRYPTION_FAILED")
                // Authentication Failure (0x05) from RootCanal, PIN or Key Missing (0x06) per the spec.
                #expect(["5", "6"].contains(failure["error"] as? String), "\(failure)")
                #expect(third.securityLevel == .none)
                await refused.stop()
                await setup.stop()
            }
        }
    }

    /// A GATT read refused for want of security makes Strobe's central secure the link (pair, or
    /// encrypt with the bond) and read again; Bumble's server decides what is enough.
    struct GATTSecurityInteropTests {
        static let characteristic = BluetoothUUID("5EC00002-5EC0-4E00-8000-00805F9B34FB")

        @Test(arguments: [("encryption", SMPIOCapability.noInputNoOutput, SMPSecurityLevel.unauthenticated),
                          ("authentication", .keyboardDisplay, .secureConnections)])
        func aRefusedReadPairsAndIsRetried(requires: String, io: SMPIOCapability, level: SMPSecurityLevel) async throws {
            try await RootCanal.with { rootCanal in
                let user = SecurityInteropTests.User(io)
                let setup = try await SecurityBondInteropTests.Setup(rootCanal, io == .noInputNoOutput ? nil : user)
                let bumble = try await setup.peripheral(
                    ["--protected", "c0ffee", "--protected-requires", requires, "--io-capability", "display-only", "--mitm"])
                user.peerStarted(bumble)
                let connection = try await setup.connect(bumble)
                let database = try await connection.gatt.discoverDatabase(subscribeToServiceChanged: false)
                let handle = try #require(database.services.flatMap(\.characteristics).first { $0.characteristic.uuid == Self.characteristic })
                    .characteristic.valueHandle
                #expect(connection.securityLevel == .none)
                #expect(try await connection.gatt.read(handle: handle) == [0xC0, 0xFF, 0xEE])
                #expect(connection.securityLevel == level)
                #expect(setup.store.bonds().count == 1)
                _ = try await connection.disconnect()

                // Next time the bond is there: the read encrypts with it instead of pairing.
                let again = try await setup.connect(bumble)
                #expect(try await again.gatt.read(handle: handle) == [0xC0, 0xFF, 0xEE])
                #expect(again.securityLevel == level)
                #expect(again.pairingResult == nil)
                _ = try await again.disconnect()
                await bumble.stop()
                await setup.stop()
            }
        }
    }
}

extension RootCanalTests {
    /// Privacy: a bonded Bumble device that comes back under a new resolvable private address
    /// is found through its IRK and reconnected with the bond's key.
    struct PrivacyInteropTests {
        @Test func aBondedPeerUnderANewPrivateAddressIsFoundAndReconnected() async throws {
            try await RootCanal.with { rootCanal in
                let setup = try await SecurityBondInteropTests.Setup(rootCanal, nil)
                let keystore = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-bumble-keys-\(UUID().uuidString).json")
                defer { try? FileManager.default.removeItem(at: keystore) }
                let arguments = ["--role", "peripheral", "--privacy", "--keystore", keystore.path]
                let before = try await BumbleSMPPeer(on: rootCanal, arguments: arguments)
                let first = try await setup.host.central.connect(name: "Bumble-SMP", timeout: .seconds(20))
                #expect(ResolvablePrivateAddress.isResolvable(first.peerAddress, type: first.peerAddressType))
                let paired = try await first.pair()
                _ = try await before.event("PAIRED")
                let identity = try #require(paired.peerIdentity)
                #expect(identity.address == BluetoothAddress("F1:F2:F3:F4:F5:C6"))
                #expect(paired.peerIRK != nil)
                _ = try await first.disconnect()
                await before.stop()

                // Started again: the same identity, a new private address.
                let after = try await BumbleSMPPeer(on: rootCanal, arguments: arguments)
                let again = try await setup.host.central.connect(bonded: identity.address, scanTimeout: .seconds(20))
                #expect(again.peerAddress != first.peerAddress)
                #expect(ResolvablePrivateAddress.isResolvable(again.peerAddress, type: again.peerAddressType))
                #expect(again.securityLevel == paired.securityLevel)
                #expect(again.pairingResult == nil)
                #expect((try await after.event("ENCRYPTED", connection: 1))["encrypted"] as? Bool == true)
                #expect(!after.has("PAIRED"))
                _ = try await again.disconnect()
                await setup.stop()
            }
        }
    }
}
