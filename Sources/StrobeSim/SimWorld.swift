import StrobeHCI
import StrobeBase
import Synchronization

/// A whole simulated world: a virtual air, the devices of a scenario each on its own virtual
/// controller with its own host stack, and one more controller for the host under test.
public final class SimWorld: Sendable {
    /// The scenario the world was built from.
    public let scenario: SimScenario
    package let air: VirtualAir
    package let devices: [SimulatedDevice]
    private let hostControllers = Lock<Int>(0)

    /// Builds the air and one virtual controller per device on `clock`; nothing advertises until
    /// `start()`.
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
            // Each on its own thread (its host's loop), as a device boots by itself.
            for device in devices {
                group.addTask(executorPreference: device.executor) { try await device.start() }
            }
            try await group.waitForAll()
        }
    }

    /// Closes every device's controller: its links drop and it stops advertising.
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
        var configuration = VirtualController.Configuration(address: address, aclLength: scenario.aclLength ?? 27, name: "host\(index)")
        configuration.withholdsCommandCreditsAfter = scenario.withholdsCommandCreditsAfter.flatMap(SimScenario.opcode)
        let controller = air.addController(configuration)
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
    /// The world behind the transport, for tests to inspect.
    public let world: SimWorld
    /// The clock the world runs on, for the host above it to run on too.
    public let clock: any Clock<Duration>
    private let controller: VirtualController

    /// Where a `sim` transport's world runs: on the real clock unless a caller (a test running
    /// the tool's commands in virtual time) sets a clock, and told of each world opened.
    public struct Environment: Sendable {
        /// The clock the world runs on (a `VirtualClock` for a run in virtual time).
        public var clock: any Clock<Duration>
        /// Called with each world a `SimTransport` opens, before it starts.
        public var opened: @Sendable (SimWorld) -> Void

        /// An environment on `clock`; `opened` does nothing unless given.
        public init(clock: any Clock<Duration>, opened: @escaping @Sendable (SimWorld) -> Void = { _ in }) {
            self.clock = clock
            self.opened = opened
        }
    }

    /// The environment `init(scenario:)` uses; nil: the real clock and no one told.
    @TaskLocal public static var environment: Environment?

    /// Builds the world of `scenario` (default `SimScenario.standard`) and a host controller in
    /// it, and starts the devices in the background.
    public init(scenario: SimScenario = .standard) {
        let environment = Self.environment
        let clock: any Clock<Duration> = environment?.clock ?? ContinuousClock()
        self.clock = clock
        world = SimWorld(scenario: scenario, clock: clock)
        controller = world.makeHostController()
        environment?.opened(world)
        // A world whose devices cannot start closes the host's controller with the reason.
        Task(executorPreference: world.air.executor) { [world, controller] in
            do {
                try await world.start()
            } catch {
                controller.close(.cannotOpen(endpoint: "sim", reason: "the simulated world's devices did not start: \(error)"))
            }
        }
    }

    /// Always `sim`.
    public var name: String { "sim" }
    /// Starts delivering the host controller's packets to `sink`; throws `TransportError.notOpen`
    /// when started before.
    public func start(_ sink: any HCIPacketSink) throws(TransportError) { try controller.start(sink) }
    /// Hands one H4 packet (HCI Command or ACL Data) to the host controller; throws
    /// `TransportError.notOpen` before `start`.
    public func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) { try controller.send(h4Packet) }
    /// Closes the host controller and stops the world's devices.
    public func close() {
        controller.close()
        world.stop()
    }
}
