import GRPCCore
import Logging
import Strobe

/// The Pandora services (Host, Security, SecurityStorage) a device under test serves to
/// Google's avatar suite, over one Strobe stack on `transport`, which is opened on first use
/// and opened again by each FactoryReset.
package final class PandoraServices: Sendable {
    private let device: PandoraDevice
    /// Logs failed calls and gives the runner their errors' descriptions.
    package let interceptors: [any ServerInterceptor]

    package init(transport: TransportSpec, logger: Logger) {
        device = PandoraDevice(spec: transport, logger: logger)
        interceptors = [ErrorReporting(logger: logger)]
    }

    package var services: [any RegistrableRPCService] {
        [HostService(device: device), SecurityService(device: device), SecurityStorageService(device: device)]
    }

    /// Opens the stack now, so that a transport that cannot be opened fails at start.
    package func open() async throws { _ = try await device.stack() }

    package func close() { device.close() }
}
