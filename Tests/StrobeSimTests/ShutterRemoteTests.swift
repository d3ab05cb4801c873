import Foundation
import StrobeDevices
import StrobeHCI
import StrobeHost
import StrobeSecurity
import Testing

import StrobeSim

/// The shutter remote kit against the simulated AB Shutter3: HID over GATT on an encrypted,
/// bonded link, Volume Up presses as shutter events, in order; a bonded remote reconnects and
/// its events flow again without pairing.
@Suite(.timeLimit(.minutes(1))) struct ShutterRemoteTests {
    /// A started world with one remote, `adjust`ed from the AB Shutter3 pressing `presses` times.
    static func world(presses: Int, clock: VirtualClock, _ adjust: (inout SimulatedDeviceDescription) -> Void = { _ in }) async throws -> SimWorld {
        var remote = SimulatedDeviceDescription(kind: .remote, name: "AB Shutter3", rssi: -58)
        remote.count = presses
        adjust(&remote)
        let world = SimWorld(scenario: SimScenario(devices: [remote]), clock: clock)
        try await world.start()
        return world
    }

    /// The host under test's controller, open, on `world`.
    static func openHost(_ world: SimWorld, clock: VirtualClock) async throws -> HCIController {
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        try await controller.open()
        return controller
    }

    static func collect(_ events: AsyncStream<ShutterRemoteEvent>, _ count: Int) async -> [ShutterRemoteEvent] {
        var out: [ShutterRemoteEvent] = []
        for await event in events {
            out.append(event)
            if out.count == count { break }
        }
        return out
    }

    @Test func pressesArriveInOrderOnABondedLinkAndAgainAfterAReconnect() async throws {
        try await VirtualTimeDriver.run(Self.pressesArriveInOrderOnABondedLinkAndAgainAfterAReconnect)
    }

    static func pressesArriveInOrderOnABondedLinkAndAgainAfterAReconnect(_ clock: VirtualClock) async throws {
        let world = try await Self.world(presses: 3, clock: clock)
        defer { world.stop() }
        let controller = try await Self.openHost(world, clock: clock)
        defer { controller.close() }
        let store = InMemoryBondStore()
        let central = Central(controller: controller, clock: clock, security: SecurityManager(store: store))

        let first = try await central.connect(name: "AB Shutter3")
        let (events, sink) = AsyncStream.makeStream(of: ShutterRemoteEvent.self)
        let remote = try await ShutterRemote.attach(to: first, handler: { sink.yield($0) })
        #expect(first.securityLevel == .unauthenticated)
        #expect(first.pairingResult?.bonded == true)
        #expect(remote.device.inputReports.map(\.layout.id) == [1, 2])
        #expect(!remote.device.usesBootProtocol)
        #expect(remote.device.information == SimulatedShutterRemote.information)
        #expect(remote.device.deviceInformation == DeviceInformation(manufacturerName: SimulatedShutterRemote.manufacturer,
                                                                     modelNumber: SimulatedShutterRemote.model, pnpID: SimulatedShutterRemote.pnpID))
        #expect(try await remote.batteryLevel().percent == 87)
        let seen = await Self.collect(events, 6)
        #expect(seen.map(\.kind) == [.press, .release, .press, .release, .press, .release])
        #expect(seen.allSatisfy { $0.usage == .volumeUp && $0.role == .shutter })
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.receivedAt.nanoseconds <= $1.receivedAt.nanoseconds })
        #expect(remote.counters.malformed == 0)
        _ = try await first.disconnect()

        // Bonded: the next connection is encrypted with the stored key, and presses flow again.
        let second = try await central.connect(name: "AB Shutter3")
        let (again, sink2) = AsyncStream.makeStream(of: ShutterRemoteEvent.self)
        _ = try await ShutterRemote.attach(to: second, handler: { sink2.yield($0) })
        #expect(second.pairingResult == nil, "encrypted with the bond, not paired again")
        #expect(second.securityLevel == .unauthenticated)
        #expect(await Self.collect(again, 2).map(\.kind) == [.press, .release])
    }

    /// A remote that ends its link (as one that sleeps when idle does) is found again, encrypted
    /// with the bond and subscribed again; its presses reach the same handler, none lost.
    @Test func aRemoteThatEndsItsLinkIsReconnectedAndKeepsReporting() async throws {
        try await VirtualTimeDriver.run(Self.aRemoteThatEndsItsLinkIsReconnectedAndKeepsReporting)
    }

    static func aRemoteThatEndsItsLinkIsReconnectedAndKeepsReporting(_ clock: VirtualClock) async throws {
        let world = try await Self.world(presses: 1, clock: clock) { $0.triggerPresses = [0.2] }  // one press on each link
        defer { world.stop() }
        let controller = try await Self.openHost(world, clock: clock)
        defer { controller.close() }
        let store = InMemoryBondStore()
        let central = Central(controller: controller, clock: clock, security: SecurityManager(store: store))
        let first = try await central.connect(name: "AB Shutter3")
        let (events, sink) = AsyncStream.makeStream(of: ShutterRemoteEvent.self)
        let remote = try await ShutterRemote.attach(to: first, handler: { sink.yield($0) })
        var links = remote.reconnections().makeAsyncIterator()
        let keeping = Task(executorPreference: clock.executor) { await remote.keepConnected(using: central) }
        defer { keeping.cancel() }

        var seen = await Self.collect(events, 2)
        var connections = [first]
        for _ in 0..<2 {
            let deviceLink = try #require(world.devices[0].peripheral.withLock { $0 }?.connections.first)
            _ = try await deviceLink.disconnect()
            connections.append(try #require(await links.next()))
            seen += await Self.collect(events, 2)
        }
        #expect(seen.map(\.kind) == [.press, .release, .press, .release, .press, .release])
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.receivedAt.nanoseconds <= $1.receivedAt.nanoseconds })
        #expect(!first.isConnected && connections[1].disconnectReason != nil && connections[2].isConnected)
        #expect(remote.connection === connections[2])
        #expect(connections.dropFirst().allSatisfy { $0.pairingResult == nil && $0.bond != nil }, "encrypted with the bond, not paired again")
        #expect(connections[2].securityLevel == .unauthenticated)
        #expect(store.bonds().count == 1)
        #expect(remote.counters.malformed == 0)
    }

    @Test func aBootKeyboardOnlyRemoteIsUsedInTheBootProtocol() async throws {
        try await VirtualTimeDriver.run(Self.aBootKeyboardOnlyRemoteIsUsedInTheBootProtocol)
    }

    static func aBootKeyboardOnlyRemoteIsUsedInTheBootProtocol(_ clock: VirtualClock) async throws {
        let world = try await Self.world(presses: 2, clock: clock) {
            $0.name = "Boot-Remote"
            $0.bootKeyboardOnly = true
        }
        defer { world.stop() }
        let controller = try await Self.openHost(world, clock: clock)
        defer { controller.close() }
        let connection = try await Central(controller: controller, clock: clock).connect(name: "Boot-Remote")
        let (events, sink) = AsyncStream.makeStream(of: ShutterRemoteEvent.self)
        let attached = try await ShutterRemote.attach(to: connection, handler: { sink.yield($0) })
        #expect(attached.device.usesBootProtocol)
        #expect(attached.device.descriptor == .bootKeyboard)
        #expect(attached.device.information == SimulatedShutterRemote.information && attached.device.deviceInformation == nil)
        let seen = await Self.collect(events, 4)
        #expect(seen.map(\.kind) == [.press, .release, .press, .release])
        #expect(seen.allSatisfy { $0.usage == .enter && $0.role == .shutter })
    }

    @Test func aHostThatWillNotSecureTheLinkCannotRead() async throws {
        try await VirtualTimeDriver.run(Self.aHostThatWillNotSecureTheLinkCannotRead)
    }

    static func aHostThatWillNotSecureTheLinkCannotRead(_ clock: VirtualClock) async throws {
        let world = try await Self.world(presses: 1, clock: clock)
        defer { world.stop() }
        let controller = try await Self.openHost(world, clock: clock)
        defer { controller.close() }
        let central = Central(controller: controller, clock: clock, security: SecurityManager(configuration: .init(allowsPairing: false)))
        let connection = try await central.connect(name: "AB Shutter3")
        await #expect(throws: HIDError.link(.security(.pairingNotAllowed))) { _ = try await ShutterRemote.attach(to: connection) }
    }

    @Test func aUsageMapDecidesWhatIsTheShutter() async throws {
        try await VirtualTimeDriver.run(Self.aUsageMapDecidesWhatIsTheShutter)
    }

    static func aUsageMapDecidesWhatIsTheShutter(_ clock: VirtualClock) async throws {
        let world = try await Self.world(presses: 1, clock: clock)
        defer { world.stop() }
        let controller = try await Self.openHost(world, clock: clock)
        defer { controller.close() }
        let central = Central(controller: controller, clock: clock)
        let connection = try await central.connect(name: "AB Shutter3")
        let (events, sink) = AsyncStream.makeStream(of: ShutterRemoteEvent.self)
        _ = try await ShutterRemote.attach(to: connection, map: .init(shutter: [.enter], halfPress: [.volumeUp]),
                                           handler: { sink.yield($0) })
        #expect(await Self.collect(events, 1).first?.role == .halfPress)
    }
}
