import Strobe

extension TransportSpec {
    /// Opens any transport, the simulated world included (`sim`, `sim:SCENARIO.json`).
    /// `readCoalescing` is as for `open(readCoalescing:)`: stream transports only.
    public func openIncludingSimulatedWorld(readCoalescing: ReadCoalescing = .off) throws(TransportError) -> any HCITransport {
        guard case .sim(let path) = self else { return try open(readCoalescing: readCoalescing) }
        try checkReadCoalescing(readCoalescing)
        guard let path else { return SimTransport(scenario: .standard) }
        do {
            return SimTransport(scenario: try SimScenario(contentsOf: path))
        } catch {
            throw TransportError.cannotOpen(endpoint: "sim:\(path)", reason: "\(error)")
        }
    }
}
