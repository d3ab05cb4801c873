import Foundation
import StrobeTestSupport

/// `Tests/Fixtures/LIFX/http_api.py`: a local server that serves the LIFX HTTP API's documented
/// shapes (there is no foreign peer for the cloud API), with control endpoints to shape its
/// next answers and a log of what it was sent.
final class LIFXHTTPServer: Sendable {
    static let script = RepositoryPaths.root.appendingPathComponent("Tests/Fixtures/LIFX/http_api.py")

    let token: String
    let port: Int
    private let process: Process

    init(token: String) async throws {
        self.token = token
        let (process, output) = try LineCollector.launch(URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.script.path, token])
        self.process = process
        guard let line = try await output.firstLine(withPrefix: "PORT ", timeout: .seconds(30)), let port = Int(line.dropFirst(5)) else {
            process.terminate()
            throw LIFXEmulator.Failure(description: "http_api.py did not start")
        }
        self.port = port
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/v1/")! }

    func control(_ path: String) async throws {
        let (_, status) = try await LocalHTTP.request("POST", "http://127.0.0.1:\(port)/control/\(path)")
        guard status == 204 else { throw LIFXEmulator.Failure(description: "control \(path): \(status)") }
    }

    /// Every API request so far: method, path, body and whether it carried the token.
    func requests() async throws -> [[String: Any]] {
        let (data, _) = try await LocalHTTP.request("GET", "http://127.0.0.1:\(port)/control/requests")
        return try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    }

    /// SIGKILL: a child may be handed SIGTERM blocked by the test process, and this server keeps
    /// nothing worth a graceful stop.
    func stop() async {
        await process.killAndWait()
    }

    deinit {
        process.kill()
    }
}
