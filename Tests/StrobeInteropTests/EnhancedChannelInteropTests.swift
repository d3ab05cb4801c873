import Foundation
import Strobe
import Testing

extension RootCanalTests {
    /// Enhanced credit-based channels (several in one request) with Bumble's own ECFC code on
    /// RootCanal (`l2cap_peer.py`): Strobe asks and Bumble echoes, Bumble asks and Strobe reads,
    /// Bumble's reconfiguration reaches Strobe's channels, and its refusals arrive typed.
    struct EnhancedChannelInteropTests {
        typealias Base = L2CAPChannelInteropTests
        static let psm = Base.psm
        /// SDUs per channel each way: the streaming cases' count shared over three channels.
        static let perChannel = max(1, Base.echoed / 3)

        static func sizes(_ channel: Int) -> [Int] { (0..<perChannel).map { 1 + ($0 * 37 + channel * 11) % 2000 } }

        /// Three channels in one request, each carrying its own SDUs there and back at once,
        /// every byte in order, with Strobe in either role. Bumble 0.0.236's server files an
        /// enhanced channel under its own CID where its credit handler looks it up by the peer's:
        /// it finds Strobe's credits only while both sides' CIDs coincide, as on a fresh link
        /// (both hand out 0x0040 on). That Strobe keeps the two apart is shown where Bumble asks
        /// (below) and in `EnhancedCreditBasedChannelTests`.
        @Test(arguments: [Base.Role.central, .peripheral])
        func strobesThreeChannelsInOneRequestEachCarryTheirOwnSDUs(role: Base.Role) async throws {
            try await RootCanal.with { rootCanal in
                let (peer, host, connection) = try await Base.connect(
                    rootCanal, ["--listen", "\(Self.psm)", "--echo", "--mps", "247", "--max-credits", "64"], strobe: role)
                defer { host.close() }
                let channels = try await connection.openChannels(psm: Self.psm, count: 3,
                                                                 parameters: .init(mtu: 2048, mps: 247, initialCredits: 64))
                #expect(channels.count == 3)
                for nth in 1...3 { #expect(try await peer.event("CHANNEL_OPEN", nth: nth)["peer_mps"] as? Int == 247) }
                let echoed = try await withThrowingTaskGroup(of: (Int, [[UInt8]]).self) { group in
                    for (index, channel) in channels.enumerated() {
                        let sdus = Self.sizes(index).enumerated().map { Base.sdu($0 + index, $1) }
                        group.addTask { for sdu in sdus { try await channel.send(sdu) }; return (-1, []) }
                        group.addTask {
                            var received: [[UInt8]] = []
                            for try await sdu in channel.sdus {
                                received.append(sdu)
                                if received.count == sdus.count { break }
                            }
                            return (index, received)
                        }
                    }
                    var echoed: [Int: [[UInt8]]] = [:]
                    for try await (index, sdus) in group where index >= 0 { echoed[index] = sdus }
                    return echoed
                }
                for index in 0..<3 {
                    #expect(echoed[index] == Self.sizes(index).enumerated().map { Base.sdu($0 + index, $1) }, "channel \(index)")
                }
                for channel in channels { channel.close() }
                for nth in 1...3 {
                    let closed = try await peer.event("CHANNEL_CLOSED", nth: nth)
                    #expect(closed["sdus"] as? Int == Self.perChannel && closed["without_credit"] as? Int == 0, "\(closed)")
                }
                #expect(channels.allSatisfy { $0.isClosed && $0.closeReason == nil })
            }
        }

        /// Bumble asks for three channels in one request to the PSM Strobe listens on and sends on
        /// each; Strobe reads every SDU of each in order, in either role.
        @Test(arguments: [Base.Role.central, .peripheral])
        func bumblesThreeChannelsToStrobeDeliverEverySDU(role: Base.Role) async throws {
            try await RootCanal.with { rootCanal in
                let (peer, host, connection) = try await Base.connect(
                    rootCanal, ["--send-count", "\(Self.perChannel)", "--send-max", "2000", "--mps", "100"], strobe: role)
                defer { host.close() }
                // A refused request first moves Strobe's CIDs one on from Bumble's.
                await #expect(throws: StrobeError.l2cap(.refused(.spsmNotSupported))) { _ = try await connection.openChannel(psm: Self.psm) }
                let incoming = try connection.listen(psm: Self.psm, parameters: .init(mtu: 2048, mps: 64, initialCredits: 32))
                peer.say("OPEN_ENHANCED \(Self.psm) 3")
                var accepted = incoming.makeAsyncIterator()
                var channels: [L2CAPChannel] = []
                for _ in 0..<3 { channels.append(try #require(await accepted.next())) }
                #expect(channels.allSatisfy { $0.psm == Self.psm && $0.peerMTU == 2048 })
                // Each channel's two ends have different CIDs: credits naming the wrong one would stall Bumble.
                var bumbles: [Int?] = []
                for nth in 1...3 { bumbles.append(try await peer.event("CHANNEL_OPEN", nth: nth)["cid"] as? Int) }
                #expect(zip(channels, bumbles).allSatisfy { Int($0.cid.rawValue) != $1 && $1 != nil }, "\(channels) \(bumbles)")
                let expected = (0..<Self.perChannel).map { Base.sdu($0, 1 + $0 * 37 % 2000) }
                let received = try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
                    for channel in channels {
                        group.addTask {
                            var received: [[UInt8]] = []
                            for try await sdu in channel.sdus {
                                received.append(sdu)
                                if received.count == expected.count { break }
                            }
                            return received
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(received.count == 3 && received.allSatisfy { $0 == expected })
                for nth in 1...3 { _ = try await peer.event("SENT", nth: nth) }
            }
        }

        /// Bumble raises the MTU and MPS of its two channels: Strobe accepts and sends SDUs as
        /// large as the new MTU (refused before); a request to lower the MTU is refused.
        @Test func bumblesReconfigurationRaisesWhatStrobeSends() async throws {
            try await RootCanal.with { rootCanal in
                let (peer, host, connection) = try await Base.connect(rootCanal, ["--echo", "--mtu", "100", "--mps", "64"])
                defer { host.close() }
                let incoming = try connection.listen(psm: Self.psm, parameters: .init(mtu: 2048, mps: 247, initialCredits: 16))
                peer.say("OPEN_ENHANCED \(Self.psm) 2")
                var accepted = incoming.makeAsyncIterator()
                let first = try #require(await accepted.next())
                let second = try #require(await accepted.next())
                #expect(first.peerMTU == 100 && second.peerMTU == 100)
                await #expect(throws: StrobeError.l2cap(.sduTooLong(length: 900, peerMTU: 100))) { try await first.send(Base.sdu(1, 900)) }

                peer.say("RECONFIGURE 1000 200")
                #expect(try await peer.event("RECONFIGURED")["result"] as? Int == 0)
                #expect(first.peerMTU == 1000 && second.peerMTU == 1000)
                try await first.send(Base.sdu(1, 900))
                try await second.send(Base.sdu(2, 1000))
                var firstEcho = first.sdus.makeAsyncIterator()
                var secondEcho = second.sdus.makeAsyncIterator()
                #expect(try await firstEcho.next() == Base.sdu(1, 900))
                #expect(try await secondEcho.next() == Base.sdu(2, 1000))

                peer.say("RECONFIGURE 500 200")
                let lowered = try await peer.event("RECONFIGURED", nth: 2)
                #expect(lowered["result"] as? Int == Int(CreditBasedReconfigureResult.mtuReduced.rawValue), "\(lowered)")
                #expect(first.peerMTU == 1000)
            }
        }

        /// Bumble's own answer to a PSM it does not serve, and results it is told to give (those
        /// that refuse all, and those that refuse some, here with every CID zero), reach the app
        /// as `refused` with that result.
        @Test(arguments: [(nil, L2CAPCreditBasedResult.spsmNotSupported), (0x0004, .noResources), (0x0005, .insufficientAuthentication),
                          (0x0009, .invalidSourceCID), (0x000A, .sourceCIDAlreadyAllocated), (0x000B, .unacceptableParameters),
                          (0x000C, .invalidParameters)])
        func refusalsAreTyped(refuse: Int?, expected: L2CAPCreditBasedResult) async throws {
            try await RootCanal.with { rootCanal in
                let (_, host, connection) = try await Base.connect(rootCanal, refuse.map { ["--refuse", "\($0)"] } ?? [])
                defer { host.close() }
                await #expect(throws: StrobeError.l2cap(.refused(expected))) {
                    _ = try await connection.openChannels(psm: Self.psm, count: 2)
                }
            }
        }
    }
}
