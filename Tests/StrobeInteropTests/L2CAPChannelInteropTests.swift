import Foundation
import StrobeTestSupport
import Strobe
import Synchronization
import Testing

extension RootCanalTests {
    /// LE credit-based channels with Bumble's `LeCreditBasedChannel` on RootCanal
    /// (`l2cap_peer.py`): Strobe opens and Bumble echoes, Bumble opens and Strobe reads, and the
    /// peer's refusals reach the app typed.
    struct L2CAPChannelInteropTests {
        static let psm: UInt16 = 0x0080
        /// SDUs each way in the streaming cases: 500 in the suite (every one a different size
        /// from 1 to 2,000 bytes), `STROBE_L2CAP_SDUS` for a longer run.
        static let echoed = ProcessInfo.processInfo.environment["STROBE_L2CAP_SDUS"].flatMap { Int($0) } ?? 500

        /// SDU `index` of `size` bytes, as both sides make them.
        static func sdu(_ index: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8((index + $0) % 256) } }

        /// Strobe's part in the link.
        enum Role: String, Sendable, CustomTestStringConvertible {
            case central, peripheral
            var testDescription: String { "Strobe as \(rawValue)" }
        }

        /// A link between Strobe and `l2cap_peer.py` with `arguments`, Strobe in `role`.
        static func connect(_ rootCanal: RootCanal, _ arguments: [String], strobe role: Role = .central) async throws
            -> (BumbleSMPPeer, HostUnderTest, LEConnection) {
            // Bumble's device lives 120 s; a longer run needs longer.
            let arguments = arguments + ["--timeout", "\(max(120, echoed / 10))"]
            let host = try await HostUnderTest(transport: rootCanal.transport)
            switch role {
            case .central:
                let peer = try await BumbleSMPPeer(on: rootCanal, script: "l2cap_peer.py", arguments: ["--role", "peripheral"] + arguments)
                let connection = try await host.central.connect(to: BluetoothAddress(peer.address)!, addressType: .random, timeout: .seconds(20))
                return (peer, host, connection)
            case .peripheral:
                let peripheral = Peripheral(central: host.central, database: GATTAttributeDatabase())
                var incoming = peripheral.incomingConnections().makeAsyncIterator()
                try await peripheral.startAdvertising(name: "Strobe-L2CAP")
                let peer = try await BumbleSMPPeer(on: rootCanal, script: "l2cap_peer.py", arguments: [
                    "--role", "central", "--peer", "\(host.controller.info!.address)"] + arguments)
                let connection = try #require(await incoming.next())
                return (peer, host, connection)
            }
        }

        /// SDUs of 1 to 2,000 bytes through K-frames of at most MPS bytes, each back from Bumble
        /// byte for byte and in order, with Strobe in either role.
        @Test(arguments: [Role.central, .peripheral], [UInt16(23), 247])
        func strobesChannelCarriesEverySDUThereAndBack(role: Role, mps: UInt16) async throws {
            try await RootCanal.with { rootCanal in
                let (peer, host, connection) = try await Self.connect(
                    rootCanal, ["--listen", "\(Self.psm)", "--echo", "--mps", "\(mps)", "--max-credits", "64"], strobe: role)
                defer { host.close() }
                let channel = try await connection.openChannel(psm: Self.psm, parameters: .init(mtu: 2048, mps: mps, initialCredits: 64))
                let opened = try await peer.event("CHANNEL_OPEN")
                #expect(opened["peer_mps"] as? Int == Int(mps) && opened["peer_mtu"] as? Int == 2048)
                #expect(channel.peerMTU == 2048)
                let sizes = (0..<Self.echoed).map { 1 + ($0 * 37) % 2000 } + [1, 2000]
                let reader = Task {
                    var received: [[UInt8]] = []
                    for try await sdu in channel.sdus {
                        received.append(sdu)
                        if received.count == sizes.count { break }
                    }
                    return received
                }
                for (index, size) in sizes.enumerated() { try await channel.send(Self.sdu(index, size)) }
                let echoed = try await reader.value
                #expect(echoed.count == sizes.count)
                #expect(echoed == sizes.enumerated().map { Self.sdu($0, $1) })
                channel.close()
                let closed = try await peer.event("CHANNEL_CLOSED")
                #expect(closed["sdus"] as? Int == sizes.count)
                #expect(closed["bytes"] as? Int == sizes.reduce(0, +))
                // Strobe never sent a K-frame beyond Bumble's credits.
                #expect(closed["without_credit"] as? Int == 0)
                #expect(channel.isClosed && channel.closeReason == nil)
            }
        }

        /// Bumble opens a channel to the PSM Strobe listens on and sends; Strobe reads every SDU
        /// in order, in either role.
        @Test(arguments: [Role.central, .peripheral])
        func bumblesChannelToStrobeDeliversEverySDU(role: Role) async throws {
            try await RootCanal.with { rootCanal in
                let (peer, host, connection) = try await Self.connect(
                    rootCanal, ["--send-count", "\(Self.echoed)", "--send-max", "2000", "--mps", "100"], strobe: role)
                defer { host.close() }
                let incoming = try connection.listen(psm: Self.psm, parameters: .init(mtu: 2048, mps: 64, initialCredits: 64))
                peer.say("OPEN \(Self.psm)")
                var channels = incoming.makeAsyncIterator()
                let channel = try #require(await channels.next())
                #expect(channel.psm == Self.psm && channel.peerMTU == 2048)
                var received: [[UInt8]] = []
                for try await sdu in channel.sdus {
                    received.append(sdu)
                    if received.count == Self.echoed { break }
                }
                #expect(received == (0..<Self.echoed).map { Self.sdu($0, 1 + $0 * 37 % 2000) })
                _ = try await peer.event("SENT")
            }
        }

        /// A reader at Strobe's end slower than Bumble's sender (it takes 20 ms over each SDU,
        /// as a busy app would): Strobe holds its credits back while SDUs wait for the app, so
        /// Bumble cannot finish sending before the reader has taken all but what 40 credits and
        /// the receive window of 4 allow (with credits going back regardless, Bumble is done
        /// within a second), and every SDU still arrives, in order.
        @Test func aSlowReaderThrottlesBumbleWithoutLoss() async throws {
            try await RootCanal.with { rootCanal in
                // SDUs of 1 to 62 bytes: one K-frame each at MPS 64.
                let (peer, host, connection) = try await Self.connect(rootCanal, ["--send-count", "200", "--send-max", "62", "--mps", "64"])
                defer { host.close() }
                let incoming = try connection.listen(psm: Self.psm, parameters: .init(mtu: 512, mps: 64, initialCredits: 40))
                peer.say("OPEN \(Self.psm)")
                var channels = incoming.makeAsyncIterator()
                let channel = try #require(await channels.next())
                let taken = Atomic<Int>(0)
                let reader = Task {
                    var received: [[UInt8]] = []
                    for try await sdu in channel.sdus {
                        received.append(sdu)
                        try await Task.sleep(for: .milliseconds(20))  // the slow app's work, not a wait for anything
                        taken.add(1, ordering: .relaxed)
                        if received.count == 200 { break }
                    }
                    return received
                }
                _ = try await peer.event("SENT")
                // At most 40 SDUs in flight on credits, 4 waiting for the app and one being read.
                let takenWhenSent = taken.load(ordering: .relaxed)
                #expect(takenWhenSent >= 200 - 45, "Bumble finished sending when the reader had taken \(takenWhenSent) of 200")
                #expect(try await reader.value == (0..<200).map { Self.sdu($0, 1 + $0 * 37 % 62) })
                #expect(channel.closeReason == nil)
            }
        }

        /// `strobe l2cap connect` as a user runs it: SDUs out, Bumble's echoes printed, a summary.
        @Test func theToolSendsAndPrintsWhatComesBack() async throws {
            try await RootCanal.with { rootCanal in
                let peer = try await BumbleSMPPeer(on: rootCanal, script: "l2cap_peer.py",
                                                   arguments: ["--role", "peripheral", "--listen", "\(Self.psm)", "--echo"])
                let result = try await StrobeCommand.run(["--transport", rootCanal.transport, "l2cap", "connect", "--address", peer.address,
                                                          "--random", "--psm", "0x80", "--count", "20", "--size", "300", "--json"])
                #expect(result.status == 0, "\(result.stderr)")
                let lines = try JSONLines.objects(result.stdout)
                #expect(lines.dropLast().map { $0["length"] as? Int } == Array(repeating: 300, count: 20))
                #expect(lines.dropLast().first?["hex"] as? String == (0..<300).map { String(format: "%02x", $0 % 256) }.joined())
                let summary = try #require(lines.last)
                #expect(summary["received"] as? Int == 20 && summary["bytesReceived"] as? Int == 6000 && summary["peerMTU"] as? Int == 2048)

                let refused = try await StrobeCommand.run(["--transport", rootCanal.transport, "l2cap", "connect", "--address", peer.address,
                                                           "--random", "--psm", "0x81"])
                #expect(refused.status == 1)
                #expect(refused.stderr.contains("the peer refused the channel: SPSM not supported (0x0002)"), "\(refused.stderr)")
            }
        }

        /// `strobe l2cap listen`: Bumble's central connects, opens a channel to the PSM and sends;
        /// the tool prints every SDU, echoes it, and sums up.
        @Test func theToolListensPrintsAndEchoes() async throws {
            try await RootCanal.with { rootCanal in
                let (process, output) = try LineCollector.launch(RepositoryPaths.strobeExecutable, [
                    "--transport", rootCanal.transport, "l2cap", "listen", "--psm", "0x80", "--count", "25", "--echo", "--json",
                    "--duration", "60"])
                defer { process.kill() }
                let listening = try #require(try await output.firstLine(withPrefix: "{", timeout: .seconds(30)))
                let address = try #require(BumbleSMPPeer.json(listening)["address"] as? String)
                let peer = try await BumbleSMPPeer(on: rootCanal, script: "l2cap_peer.py", arguments: [
                    "--role", "central", "--peer", address, "--send-count", "25", "--send-max", "400"])
                _ = try await output.firstLine(withPrefix: "{\"connected\"", timeout: .seconds(30))
                peer.say("OPEN 0x80")
                _ = try await peer.event("SENT")
                let status = await process.exitStatus()
                #expect(status == 0, "\(output.lines)")
                let lines = output.lines.map(BumbleSMPPeer.json)
                let sdus = lines.filter { $0["index"] != nil }
                #expect(sdus.map { $0["length"] as? Int } == (0..<25).map { 1 + $0 * 37 % 400 })
                #expect(lines.last?["received"] as? Int == 25)
                // The echoes reached Bumble: it counts what it received when the channel closes.
                let closed = try await peer.event("CHANNEL_CLOSED")
                #expect(closed["sdus"] as? Int == 25)
            }
        }

        /// Bumble refuses a channel on a plain link: Strobe's central pairs (Just Works) and asks
        /// again, and the channel opens on the encrypted link.
        @Test func aRefusalForSecurityPairsAndAsksAgain() async throws {
            try await RootCanal.with { rootCanal in
                let (peer, host, connection) = try await Self.connect(rootCanal, ["--listen", "\(Self.psm)", "--echo", "--require-encryption"])
                defer { host.close() }
                let channel = try await connection.openChannel(psm: Self.psm)
                #expect(try await peer.event("REFUSED")["result"] as? Int == 5)
                #expect(connection.securityLevel == .unauthenticated)
                try await channel.send([1, 2, 3])
                var echoed = channel.sdus.makeAsyncIterator()
                #expect(try await echoed.next() == [1, 2, 3])
            }
        }

        /// Bumble with no listener on the PSM says SPSM not supported; one told to refuse gives
        /// each result; both reach the app as `refused` with that result.
        @Test(arguments: [(nil, L2CAPCreditBasedResult.spsmNotSupported), (0x0004, .noResources), (0x0005, .insufficientAuthentication),
                          (0x0006, .insufficientAuthorization), (0x0007, .encryptionKeySizeTooShort), (0x0008, .insufficientEncryption),
                          (0x0009, .invalidSourceCID), (0x000A, .sourceCIDAlreadyAllocated), (0x000B, .unacceptableParameters)])
        func refusalsAreTyped(refuse: Int?, expected: L2CAPCreditBasedResult) async throws {
            try await RootCanal.with { rootCanal in
                let (_, host, connection) = try await Self.connect(rootCanal, refuse.map { ["--refuse", "\($0)"] } ?? [])
                defer { host.close() }
                await #expect(throws: StrobeError.l2cap(.refused(expected))) { _ = try await connection.openChannel(psm: Self.psm) }
            }
        }
    }
}
