import Foundation

/// `strobe sim serve` in a process of its own, on an ephemeral loopback port: the simulated
/// world as a controller reached over H4/TCP. Ends when it is released (or after `duration`).
final class SimServer: Sendable {
    struct LaunchError: Error, CustomStringConvertible {
        var description: String
    }

    /// `tcp:127.0.0.1:PORT`, as `--transport` takes it.
    let endpoint: String
    private let process: Process

    /// `scenario`: a scenario file; the standard world when `nil`.
    init(duration: Int, scenario: String? = nil) async throws {
        let (process, lines) = try LineCollector.launch(
            RepositoryPaths.strobeExecutable,
            ["sim", "serve", "--listen", "tcp:127.0.0.1:0", "--duration", "\(duration)"] + (scenario.map { ["--scenario", $0] } ?? []))
        self.process = process
        guard let ready = try await lines.firstLine(withPrefix: "serving the simulated world on ", timeout: .seconds(20)),
              let endpoint = ready.split(separator: " ").first(where: { $0.hasPrefix("tcp:") }) else {
            process.terminate()
            throw LaunchError(description: "strobe sim serve did not say where it serves: \(lines.lines)")
        }
        self.endpoint = String(endpoint)
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
