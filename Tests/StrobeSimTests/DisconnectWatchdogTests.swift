import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization
import Testing

import StrobeSim

/// A controller that never reports Disconnection Complete does not hang `disconnect()`.
@Suite(.timeLimit(.minutes(1))) struct DisconnectWatchdogTests {
    /// Passes everything through except Disconnection Complete events on the way to the host.
    final class SwallowDisconnectionComplete: HCITransport, HCIPacketSink, Sendable {
        let inner: any HCITransport
        private let sink = Lock<(any HCIPacketSink)?>(nil)
        init(_ inner: any HCITransport) { self.inner = inner }
        var name: String { inner.name }
        func start(_ sink: any HCIPacketSink) throws(TransportError) {
            self.sink.withLock { $0 = sink }
            try inner.start(self)
        }
        func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) { try inner.send(h4Packet) }
        func close() { inner.close() }
        func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
            if type == .event, payload.first == 0x05 { return }
            sink.withLock { $0 }?.transportDidReceive(type, payload: payload, at: time)
        }
        func transportDidClose(_ error: TransportError?) { sink.withLock { $0 }?.transportDidClose(error) }
    }

    @Test func disconnectGivesUpWaitingAfterItsTimeout() async throws {
        try await VirtualTimeDriver.run(Self.disconnectGivesUpWaitingAfterItsTimeout)
    }

    static func disconnectGivesUpWaitingAfterItsTimeout(_ clock: VirtualClock) async throws {
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { $0.kind == .test }
        let world = SimWorld(scenario: scenario, clock: clock)
        try await world.start()
        let controller = HCIController(transport: SwallowDisconnectionComplete(world.makeHostController()), clock: clock)
        try await controller.open()
        defer { controller.close() }
        let central = Central(controller: controller, clock: clock)
        let device = try #require(world.devices.first)
        let connection = try await central.connect(to: device.controller.configuration.address, addressType: .random)
        let started = clock.now
        #expect(try await connection.disconnect() == .connectionTerminatedByLocalHost)
        // The Disconnect command is answered at once; then only the watchdog's wait passes.
        #expect(started.duration(to: clock.now) == LEConnection.disconnectionTimeout)
        #expect(!connection.isConnected)
        #expect(central.connections.isEmpty)
        world.stop()
    }
}
