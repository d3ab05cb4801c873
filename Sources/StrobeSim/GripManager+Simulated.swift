import StrobeDevices
import StrobeHCI
import StrobeHost

extension GripManager {
    /// The `simulated` mode: a grip manager on its own simulated world (the standard one unless
    /// a scenario is given), for apps and demos without hardware. The world lives as long as the
    /// manager's controller is open; bonds are kept in `bonds` (in memory unless given).
    public static func simulated<C: Clock>(
        scenario: SimScenario = .standard, configuration: Configuration = Configuration(),
        bonds: any BondStore = InMemoryBondStore(), clock: C = ContinuousClock()
    ) async throws -> GripManager where C.Duration == Duration {
        let world = SimWorld(scenario: scenario, clock: clock)
        try await world.start()
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        try await controller.open()
        return GripManager(central: Central(controller: controller, clock: clock, security: SecurityManager(store: bonds)),
                           configuration: configuration)
    }
}
