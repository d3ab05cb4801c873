import Foundation
import Strobe
import Testing

extension RootCanalTests {
    /// Connection parameters asked for both ways with Bumble on RootCanal: a Bumble peripheral's
    /// LE Connection Update becomes the link layer's Connection Parameters Request, which
    /// Strobe's central answers as its policy says; Strobe asks as central and as peripheral.
    struct ConnectionParameterInteropTests {
        /// `strobe connect --hold` shows the peer's request, then the parameters it brought, each
        /// stamped from the command's start (none before it).
        @Test func connectHoldShowsWhoAskedAndWhen() async throws {
            try await RootCanal.with { rootCanal in
                let peer = try await BumbleSMPPeer(on: rootCanal, arguments: ["--role", "peripheral", "--update-parameters", "30,45,2,2000"])
                let result = try await StrobeCommand.run(
                    ["--transport", rootCanal.transport, "connect", "--address", peer.address, "--random", "--hold", "3", "--json"])
                #expect(result.status == 0, "\(result.stderr)")
                let events = try JSONLines.objects(result.stdout).dropFirst()
                let names = events.compactMap { $0["event"] as? String }
                let request = try #require(names.firstIndex(of: "parameterRequest"), "\(names)")
                #expect(names[request...].contains("parameters"), "\(names)")
                #expect((events.first { $0["event"] as? String == "parameterRequest" }?["detail"] as? String)?
                    .hasPrefix("asked by the peer: interval 30.00-45.00 ms, latency 2") == true)
                for event in events {
                    let t = try #require(event["t"] as? Double)
                    #expect(t >= 0 && t < 30, "\(event)")
                }
            }
        }

        /// `updateParameters` as central: Bumble's peripheral sees the values asked for.
        @Test func theCentralsUpdateReachesThePeripheral() async throws {
            try await RootCanal.with { rootCanal in
                let peer = try await BumbleSMPPeer(on: rootCanal, arguments: ["--role", "peripheral"])
                let host = try await HostUnderTest(transport: rootCanal.transport)
                defer { host.close() }
                let connection = try await host.central.connect(to: BluetoothAddress(peer.address)!, addressType: .random, timeout: .seconds(20))
                let inUse = try await connection.updateParameters(
                    LEConnectionParameters(intervalMin: 40, intervalMax: 40, maxLatency: 1, supervisionTimeout: 300))
                #expect(inUse.interval == 40 && inUse.latency == 1 && inUse.supervisionTimeout == 300)
                let seen = try await peer.event("PARAMETERS")
                #expect(seen["interval"] as? Double == 50 && seen["latency"] as? Int == 1 && seen["timeout"] as? Double == 3000, "\(seen)")
                _ = try await connection.disconnect()
            }
        }

        /// LE Read PHY and LE Set PHY on one link: the PHY asked for is the one read back.
        @Test func aLinksPHYIsReadAndSet() async throws {
            try await RootCanal.with { rootCanal in
                let peer = try await BumbleSMPPeer(on: rootCanal, arguments: ["--role", "peripheral"])
                let host = try await HostUnderTest(transport: rootCanal.transport, configuration: .init(requestDataLengthAndPHY: false))
                defer { host.close() }
                let connection = try await host.central.connect(to: BluetoothAddress(peer.address)!, addressType: .random, timeout: .seconds(20))
                #expect(try await connection.readPHY() == connection.phy)
                let set = try await connection.setPHY(tx: [.le2M], rx: [.le2M])
                #expect(set == LEConnectionPHY(tx: .le2M, rx: .le2M))
                #expect(try await connection.readPHY() == set)
                let back = try await connection.setPHY(tx: [.le1M], rx: [.le1M])
                #expect(back == LEConnectionPHY(tx: .le1M, rx: .le1M) && connection.phy == back)
                _ = try await connection.disconnect()
            }
        }

        /// `updateParameters` as peripheral: the link layer asks Bumble's central, which takes
        /// them; both sides see the values asked for.
        @Test func thePeripheralsUpdateReachesTheCentral() async throws {
            try await RootCanal.with { rootCanal in
                let host = try await HostUnderTest(transport: rootCanal.transport)
                defer { host.close() }
                let peripheral = Peripheral(central: host.central, database: GATTAttributeDatabase())
                var incoming = peripheral.incomingConnections().makeAsyncIterator()
                try await peripheral.startAdvertising(name: "Strobe-Params")
                let peer = try await BumbleSMPPeer(on: rootCanal, arguments: ["--role", "central", "--peer", "\(host.controller.info!.address)"])
                let connection = try #require(await incoming.next())
                _ = try await peer.event("CONNECTED")
                let inUse = try await connection.updateParameters(
                    LEConnectionParameters(intervalMin: 24, intervalMax: 24, maxLatency: 0, supervisionTimeout: 400))
                #expect(inUse.interval == 24 && inUse.supervisionTimeout == 400)
                let seen = try await peer.event("PARAMETERS")
                #expect(seen["interval"] as? Double == 30 && seen["timeout"] as? Double == 4000, "\(seen)")
            }
        }
    }
}

/// Apart from the RootCanal suite and not held to its limit of worlds at once: after its first
/// seconds this test only waits (a link that must stay up for 60 s), which costs the machine nothing.
@Suite struct LinkStaysUpInteropTests {
    /// In the policy (30 to 45 ms): replied and held; outside it (1 s intervals): Negative
    /// Reply, Unacceptable Connection Parameters (0x3B). The link stays up for 60 s after.
    @Test(.timeLimit(.minutes(5))) func aPeripheralsRequestsAreAnsweredAndTheLinkStaysUp() async throws {
        try await RootCanal.with(mostlyIdle: true) { rootCanal in
            let peer = try await BumbleSMPPeer(on: rootCanal, arguments: [
                "--role", "peripheral", "--update-parameters", "30,45,2,2000", "--update-parameters", "1000,1000,0,6000"])
            let host = try await HostUnderTest(transport: rootCanal.transport)
            defer { host.close() }
            let connection = try await host.central.connect(to: BluetoothAddress(peer.address)!, addressType: .random, timeout: .seconds(20))
            let done = try await peer.event("UPDATE_DONE", timeout: .seconds(10))
            #expect((done["interval"] as? Double).map { (30...45).contains($0) } == true, "\(done)")
            let failed = try await peer.event("UPDATE_FAILED", timeout: .seconds(10))
            #expect(failed["error"] as? Int == Int(HCIStatus.unacceptableConnectionParameters.rawValue))
            // Answered, each well inside the procedure's own 40 s limit (unanswered, it would
            // take all of it and end the link).
            #expect((done["seconds"] as? Double ?? 99) < 10 && (failed["seconds"] as? Double ?? 99) < 10, "\(done) \(failed)")
            #expect(connection.remoteParameterRequests == (received: 2, accepted: 1))
            let interval = Double(connection.parameters.interval) * 1.25
            #expect((30...45).contains(interval) && connection.parameters.latency == 2 && connection.parameters.supervisionTimeout == 200)
            // The link is not lost within 60 s (an unanswered request would end it at 40 s).
            await #expect(throws: OperationTimeout.self) {
                _ = try await withTimeout(.seconds(60), clock: ContinuousClock()) { await connection.disconnected() }
            }
            #expect(connection.isConnected && !peer.has("DISCONNECTED"))
            _ = try await connection.disconnect()
        }
    }
}
