import Foundation

/// `Tests/Fixtures/Faults/fault_proxy.py` in a process of its own: an H4/TCP proxy in front of a
/// controller that breaks the controller's stream at its `at`th ACL packet (closes it, truncates
/// a packet, inserts a byte that is no H4 type, drops a byte, announces an impossible length, or
/// goes silent). Serves one host connection.
final class FaultProxy: Sendable {
    struct LaunchError: Error, CustomStringConvertible {
        var description: String
    }

    /// `tcp:127.0.0.1:PORT` of the proxy, as `--transport` takes it.
    let endpoint: String
    private let process: Process
    private let output: LineCollector

    init(upstream: String, fault: String, at aclPacket: Int) async throws {
        let (process, output, ready) = try await PeerStarts.slots.holding {
            let (process, output) = try LineCollector.launch(
                RepositoryPaths.bumblePython,
                [RepositoryPaths.faultProxy.path, "--upstream", String(upstream.dropFirst("tcp:".count)),
                 "--fault", fault, "--at", "\(aclPacket)"])
            return (process, output, try await output.firstLine(withPrefix: "READY hci=", timeout: .seconds(60)))
        }
        self.process = process
        self.output = output
        guard let ready else {
            process.terminate()
            throw LaunchError(description: "fault_proxy.py did not start: \(output.lines)")
        }
        endpoint = String(ready.dropFirst("READY hci=".count))
    }

    /// The `FAULT` line's JSON once the fault was applied; `nil` if it never was.
    func applied(timeout: Duration = .seconds(5)) async throws -> [String: Any]? {
        guard let line = try await output.firstLine(withPrefix: "FAULT ", timeout: timeout) else { return nil }
        return try JSONSerialization.jsonObject(with: Data(line.dropFirst("FAULT ".count).utf8)) as? [String: Any]
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
