import Strobe

extension TransportSpec {
    /// Opens any transport, the simulated world included (`sim`, `sim:SCENARIO.json`).
    public func openIncludingSimulatedWorld() throws -> any HCITransport {
        guard case .sim(let scenario) = self else { return try open() }
        return SimTransport(scenario: try scenario.map { path in
            do { return try SimScenario(contentsOf: path) } catch { throw TransportError.cannotOpen(endpoint: "sim:\(path)", reason: "\(error)") }
        } ?? .standard)
    }
}
