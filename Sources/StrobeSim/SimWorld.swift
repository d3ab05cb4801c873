import StrobeHCI
import Synchronization

/// A whole simulated world: a virtual air, the devices of a scenario each on its own virtual
/// controller with its own host stack, and one more controller for the host under test.
public final class SimWorld: Sendable {
    public let scenario: SimScenario
    package let air: VirtualAir
    package let devices: [SimulatedDevice]
    private let hostControllers = Mutex<Int>(0)

    public init<C: Clock>(scenario: SimScenario, clock: C) where C.Duration == Duration {
        self.scenario = scenario
        air = VirtualAir(clock: clock, seed: scenario.seed)
        var devices: [SimulatedDevice] = []
        for (index, description) in scenario.devices.enumerated() {
            let address = description.address.flatMap(BluetoothAddress.init)
                // Random static: the two top bits set.
                ?? BluetoothAddress("C4:5E:00:00:00:\(String(format: "%02X", index + 1))")!
            let controller = air.addController(.init(address: address, aclLength: 251, rssi: Int8(clamping: description.rssi),
                                                     name: description.name))
            devices.append(SimulatedDevice(description, controller: controller, clock: clock,
                                           seed: scenario.seed &* 0x100 &+ UInt64(index) &+ 1))
        }
        self.devices = devices
    }

    /// Starts every device: init sequence, GATT database, advertising.
    public func start() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for device in devices { group.addTask { try await device.start() } }
            try await group.waitForAll()
        }
    }

    public func stop() {
        for device in devices { device.stop() }
    }

    /// A controller for a host to drive, like any transport; `address` to stand for the same
    /// controller opened again (a new run of an app).
    package func makeHostController(address: BluetoothAddress? = nil) -> VirtualController {
        let index = hostControllers.withLock { n -> Int in
            n += 1
            return n
        }
        let address = address ?? BluetoothAddress("00:5E:00:00:F0:\(String(format: "%02X", index))")!
        let controller = air.addController(.init(address: address, aclLength: scenario.aclLength ?? 27, name: "host\(index)"))
        let conditions = LinkConditions(
            latency: .microseconds(Int64((scenario.latencyMilliseconds ?? 0) * 1000)),
            jitter: .microseconds(Int64((scenario.jitterMilliseconds ?? 0) * 1000)),
            loss: scenario.loss ?? 0)
        for device in devices { air.setConditions(conditions, between: controller, and: device.controller) }
        return controller
    }
}

/// The simulated world as a transport: the host's controller, with the world kept alive and
/// started in the background (its devices advertise within a few milliseconds).
public final class SimTransport: HCITransport, Sendable {
    public let world: SimWorld
    /// The clock the world runs on, for the host above it to run on too.
    public let clock: any Clock<Duration>
    private let controller: VirtualController

    /// Where a `sim` transport's world runs: on the real clock unless a caller (a test running
    /// the tool's commands in virtual time) sets a clock, and told of each world opened.
    public struct Environment: Sendable {
        public var clock: any Clock<Duration>
        public var opened: @Sendable (SimWorld) -> Void

        public init(clock: any Clock<Duration>, opened: @escaping @Sendable (SimWorld) -> Void = { _ in }) {
            self.clock = clock
            self.opened = opened
        }
    }

    @TaskLocal public static var environment: Environment?

    public init(scenario: SimScenario = .standard) {
        let environment = Self.environment
        let clock: any Clock<Duration> = environment?.clock ?? ContinuousClock()
        self.clock = clock
        world = SimWorld(scenario: scenario, clock: clock)
        controller = world.makeHostController()
        environment?.opened(world)
        Task { [world] in try? await world.start() }
    }

    public var name: String { "sim" }
    public func start(_ sink: any HCIPacketSink) throws(TransportError) { try controller.start(sink) }
    public func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) { try controller.send(h4Packet) }
    public func close() {
        controller.close()
        world.stop()
    }
}
