import Foundation
import Strobe

/// Strobe's host stack opened on a Bumble fixture's H4 port: controller initialised, central ready.
struct HostUnderTest {
    let controller: HCIController
    let central: Central

    init(transport: String, configuration: Central.Configuration = Central.Configuration(),
         security: SecurityManager = SecurityManager(),
         wrap: (any HCITransport) -> any HCITransport = { $0 }) async throws {
        let link = wrap(try TransportSpec(parsing: transport).open())
        controller = HCIController(transport: link, configuration: .loadedMachine)
        try await controller.open()
        central = Central(controller: controller, configuration: configuration, security: security)
    }

    func close() {
        controller.close()
    }
}
