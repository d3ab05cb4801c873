import StrobeDevices
import StrobeHCI
import StrobeHost

extension GripManager {
    /// The `simulated` mode: a grip manager on its own simulated world (the standard one unless
    /// a scenario is given), for apps and demos without hardware. The world lives as long as the
    /// manager's controller is open; bonds are kept in `bonds` (in memory unless given).
    public static func simulated(
        scenario: SimScenario = .standard, configuration: Configuration = Configuration(),
        bonds: any BondStore = InMemoryBondStore()
    ) async throws -> GripManager {
        let world = SimWorld(scenario: scenario, clock: ContinuousClock())
        try await world.start()
        let controller = HCIController(transport: world.makeHostController())
        try await controller.open()
        return GripManager(central: Central(controller: controller, security: SecurityManager(store: bonds)),
                           clock: ContinuousClock(), configuration: configuration)
    }
}
