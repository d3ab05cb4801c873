import ArgumentParser
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Logging
import Strobe
import StrobePandora

/// Serves the Pandora interfaces (Host, Security, SecurityStorage) for Strobe on a transport,
/// so that Google's avatar suite can drive it as a device under test.
@main
struct StrobePandoraCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strobe-pandora",
        abstract: "Serve Strobe as a Pandora device under test (gRPC on 127.0.0.1).",
        discussion: "Prints \"READY grpc=127.0.0.1:PORT\" on stdout once it serves.")

    @Option(name: .long, help: ArgumentHelp(
        "Where the controller is: sim[:SCENARIO] (the simulated world, the default), hci:N, tcp:HOST:PORT, unix:PATH or serial:DEV[,BAUD][,rtscts].",
        valueName: "transport"))
    var transport: String = "sim"

    @Option(name: .long, help: "The gRPC port on 127.0.0.1 (0: any free port).")
    var port: Int = 8999

    @Flag(name: .long, help: "Log the stack's events to stderr.")
    var verbose = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port takes 0 ... 65535") }
    }

    func run() async throws {
        let spec: TransportSpec
        do {
            spec = try TransportSpec(parsing: transport)
        } catch {
            throw ValidationError(error.description)
        }
        var logger = Logger(label: "strobe-pandora", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = verbose ? .debug : .warning
        let pandora = PandoraServices(transport: spec, logger: logger)
        try await pandora.open()
        defer { pandora.close() }
        let server = GRPCServer(
            transport: HTTP2ServerTransport.Posix(address: .ipv4(host: "127.0.0.1", port: port), transportSecurity: .plaintext),
            services: pandora.services, interceptors: pandora.interceptors)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await server.serve() }
            guard let bound = try await server.listeningAddress?.ipv4 else {
                throw ValidationError("the gRPC server did not bind 127.0.0.1:\(port)")
            }
            // Runners read this line from a file: written and flushed at once.
            print("READY grpc=127.0.0.1:\(bound.port)")
            fflush(nil)
        }
    }
}
