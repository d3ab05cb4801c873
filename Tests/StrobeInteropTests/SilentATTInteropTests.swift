import Foundation
import Strobe
import StrobeTestSupport
import Testing

extension RootCanalTests {
    /// A peer whose ATT server never answers (a host with no GATT server running on top of its
    /// Security Manager): the link stands at ATT_MTU 23 and pairing, which needs no ATT, works.
    struct SilentATTInteropTests {
        @Test func connectAndPairNeedNoAnswerToTheMTUExchange() async throws {
            try await RootCanal.with { rootCanal in
                let peer = try await BumbleSMPPeer(on: rootCanal, arguments: ["--role", "peripheral", "--silent-att"])
                let scratch = try ScratchDirectory("strobe-bonds")
                defer { scratch.remove() }
                let file = scratch.path("bonds.json")

                let start = ContinuousClock.now
                let connected = try await StrobeCommand.run(
                    ["--transport", rootCanal.transport, "connect", "--address", peer.address, "--random", "--json"])
                #expect(connected.status == 0, "\(connected.stderr)")
                let report = try #require(try JSONLines.objects(connected.stdout).first)
                #expect(report["mtu"] as? Int == 23)
                let paired = try await StrobeCommand.run(
                    ["--transport", rootCanal.transport, "pair", "--address", peer.address, "--random", "--bonds", file, "--json"])
                #expect(paired.status == 0, "\(paired.stderr)")
                let result = try #require(try JSONLines.objects(paired.stdout).first)
                #expect(result["bonded"] as? Bool == true)
                _ = try await peer.event("PAIRED")
                #expect(try FileBondStore(path: file).bonds().count == 1)
                // Each within a few seconds, not the ATT transaction timeout (30 s).
                #expect(start.duration(to: .now) < .seconds(20))
            }
        }
    }
}
