import GRPCCore
import Logging
import Strobe

/// The Pandora services (Host, Security, SecurityStorage) a device under test serves to
/// Google's avatar suite, over one Strobe stack on `transport`, which is opened on first use
/// and opened again by each FactoryReset.
public final class PandoraServices: Sendable {
    private let device: PandoraDevice
    /// Logs failed calls and gives the runner their errors' descriptions.
    public let interceptors: [any ServerInterceptor]

    public init(transport: TransportSpec, logger: Logger) {
        device = PandoraDevice(spec: transport, logger: logger)
        interceptors = [ErrorReporting(logger: logger)]
    }

    public var services: [any RegistrableRPCService] {
        [HostService(device: device), SecurityService(device: device), SecurityStorageService(device: device)]
    }

    /// Opens the stack now, so that a transport that cannot be opened fails at start.
    public func open() async throws { _ = try await device.stack() }

    public func close() { device.close() }
}
