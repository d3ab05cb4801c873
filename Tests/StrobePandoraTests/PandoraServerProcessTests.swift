import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import StrobePandora
import SwiftProtobuf
import StrobeTestSupport
import Testing

/// The `strobe-pandora` process on the simulated world, asked over gRPC on loopback what
/// avatar asks first: its address, then what it hears when it scans.
@Suite(.timeLimit(.minutes(5))) struct PandoraServerProcessTests {
    @Test func servesTheSimulatedWorldOverGRPC() async throws {
        let server = try PandoraServerProcess()
        do {
            try await ask(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func ask(_ server: PandoraServerProcess) async throws {
        let port = try await server.ready()
        try await withGRPCClient(transport: .http2NIOPosix(target: .ipv4(address: "127.0.0.1", port: port),
                                                            transportSecurity: .plaintext)) { client in
            let host = Pandora_Host.Client(wrapping: client)
            // Deadlines against a hang, not a measure of speed: the full suite keeps both cores
            // and the test pool busy while this waits on another process.
            var options = CallOptions.defaults
            options.timeout = .seconds(120)
            let address = try await host.readLocalAddress(Google_Protobuf_Empty(), options: options)
            // The simulated world's first host controller, most significant byte first.
            #expect(address.address == Data([0x00, 0x5E, 0x00, 0x00, 0xF0, 0x01]))

            var request = Pandora_ScanRequest()
            request.ownAddressType = .random
            let names = try await host.scan(request, options: options) { response in
                var names: Set<String> = []
                for try await report in response.messages {
                    names.insert(report.data.completeLocalName)
                    if names.isSuperset(of: ["Nova2", "Grip-S1", "Pen-S1"]) { break }
                }
                return names
            }
            #expect(names.isSuperset(of: ["Nova2", "Grip-S1", "Pen-S1"]))
        }
    }
}

/// `strobe-pandora --transport sim --port 0`, started next to the test bundle's build.
final class PandoraServerProcess: Sendable {
    private let process: Process
    private let output: Pipe

    init() throws {
        let buildDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let executable = [buildDirectory, buildDirectory.deletingLastPathComponent()]
            .map { $0.appendingPathComponent("strobe-pandora") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? buildDirectory.appendingPathComponent("strobe-pandora")
        process = Process()
        process.executableURL = executable
        process.arguments = ["--transport", "sim", "--port", "0"]
        output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// The port from the READY line, read on the pipe's own handler (no thread of the
    /// concurrency pool waits on the process); an end of output before it fails the test.
    func ready() async throws -> Int {
        let handle = output.fileHandleForReading
        let line: String = await withCheckedContinuation { continuation in
            let buffer = LineBuffer()
            handle.readabilityHandler = { handle in
                let data = handle.availableData
                guard let line = buffer.append(data) else { return }
                handle.readabilityHandler = nil
                continuation.resume(returning: line)
            }
        }
        guard line.hasPrefix("READY grpc=127.0.0.1:"), let port = Int(line.split(separator: ":").last ?? "") else {
            throw ServerFailure(line: line)
        }
        return port
    }

    /// SIGTERM, then SIGKILL after 10 s; waited for off the pool.
    func stop() async {
        await process.stop()
    }

    /// Bytes until the first line ends (or the output does: an empty read), said once.
    private final class LineBuffer: @unchecked Sendable {
        private var bytes: [UInt8] = []
        private var done = false

        /// Called on the handle's serial queue only.
        func append(_ data: Data) -> String? {
            guard !done else { return nil }
            if let newline = data.firstIndex(of: UInt8(ascii: "\n")) {
                bytes += data[data.startIndex..<newline]
            } else if !data.isEmpty {
                bytes += data
                return nil
            }
            done = true
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    struct ServerFailure: Error, CustomStringConvertible {
        var line: String
        var description: String { "strobe-pandora did not print READY (it printed \"\(line)\")" }
    }
}
