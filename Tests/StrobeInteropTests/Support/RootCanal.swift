import Foundation
import StrobeTestSupport
import StrobeBase
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// RootCanal (PyPI `rootcanal` 1.10.0, from the venv `Scripts/install-test-deps.sh` makes) on
/// loopback ports of its own: every TCP connection to `hciPort` is a controller, all on one air,
/// and the link layer's encryption really compares keys.
final class RootCanal: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let hciPort: UInt16
    private let process: Process
    private let output: LineCollector
    /// The peers started on it, stopped with it.
    private let peers = Lock<[BumbleSMPPeer]>([])

    /// How many RootCanal worlds run at once: each brings Python peers whose start keeps a core
    /// busy, and a two-core machine running every one at once would starve the real-time tests.
    private static let worlds = Slots(3)

    /// Runs `body` with a RootCanal of its own (once one of the `worlds` is free, unless the
    /// test is `mostlyIdle`: it waits on the air once its peers have started), and stops it and
    /// every peer started on it however `body` ends.
    static func with<T: Sendable>(mostlyIdle: Bool = false, _ body: (RootCanal) async throws -> T) async throws -> T {
        if mostlyIdle { return try await run(body) }
        return try await worlds.holding { try await run(body) }
    }

    private static func run<T: Sendable>(_ body: (RootCanal) async throws -> T) async throws -> T {
        let rootCanal = try await RootCanal()
        do {
            let result = try await body(rootCanal)
            await rootCanal.stop()
            return result
        } catch {
            await rootCanal.stop()
            throw error
        }
    }

    func adopt(_ peer: BumbleSMPPeer) { peers.withLock { $0.append(peer) } }

    /// `tcp:127.0.0.1:PORT` for Strobe's `TransportSpec`.
    var transport: String { "tcp:127.0.0.1:\(hciPort)" }
    /// The same controller port as Bumble's transport spec.
    var bumbleTransport: String { "tcp-client:127.0.0.1:\(hciPort)" }

    /// The binary inside the venv's `rootcanal` package (run directly: `python -m rootcanal`
    /// would leave it behind as a grandchild when killed).
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["STROBE_ROOTCANAL"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let lib = RepositoryPaths.root.appendingPathComponent(".venv-rootcanal/lib")
        let python = (try? FileManager.default.contentsOfDirectory(atPath: lib.path))?.first { $0.hasPrefix("python3") } ?? "python3"
        return lib.appendingPathComponent("\(python)/site-packages/rootcanal/bin/linux-x86_64/rootcanal")
    }

    init() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw Failure(description: "no RootCanal at \(Self.executable.path): run Scripts/install-test-deps.sh")
        }
        // A port found free can be taken by another process before RootCanal binds it (other
        // worlds start at the same time): RootCanal says so, and starts again on other ports.
        var attempt = 0
        while true {
            attempt += 1
            let ports = try (0..<4).map { _ in try LIFXEmulator.freePort(SOCK_STREAM) }
            let process = Process()
            process.executableURL = Self.executable
            process.arguments = ["-hci_port", "\(ports[0])", "-link_port", "\(ports[1])", "-link_ble_port", "\(ports[2])",
                                 "-test_port", "\(ports[3])"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            let output = LineCollector(pipe.fileHandleForReading)
            try process.run()
            let listening = "Listening on: \(ports[0]) "
            let line = try await output.firstLine(timeout: .seconds(60), describedAs: "saying it listens on \(ports[0])") {
                $0.contains(listening) || $0.contains("Error binding")
            }
            if let line, line.contains(listening) {
                hciPort = ports[0]
                self.process = process
                self.output = output
                return
            }
            await process.killAndWait()
            guard attempt < 3 else {
                throw Failure(description: "RootCanal did not listen on \(ports[0]): \(output.lines.suffix(10).joined(separator: "\n"))")
            }
        }
    }

    /// Kills its peers and it, and waits for them off the test's pool.
    func stop() async {
        for peer in peers.withLock({ $0 }) { await peer.stop() }
        await process.killAndWait()
    }

    deinit {
        process.kill()
    }
}

/// `Tests/Fixtures/Bumble/smp_peer.py`: a Bumble device pairing with Bumble's own Security
/// Manager on RootCanal. Its user answers come from stdin; what it shows and how pairing ended
/// come as lines on stdout.
final class BumbleSMPPeer: Sendable {
    let address: String
    private let readyLine: String
    private let process: Process
    private let input: FileHandle
    let output: LineCollector

    /// `script`: `smp_peer.py`, or another Bumble fixture that speaks the same lines
    /// (`hid_remote.py`).
    init(on rootCanal: RootCanal, script: String = "smp_peer.py", arguments: [String]) async throws {
        let python = RepositoryPaths.bumblePython
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw RootCanal.Failure(description: "no Bumble venv at \(python.path): run Scripts/install-test-deps.sh")
        }
        let fullArguments = [RepositoryPaths.bumbleFixtures.appendingPathComponent(script).path,
                             "--transport", rootCanal.bumbleTransport, "--timeout", "120"] + arguments
        // A Python that has not said READY within 45 s on a busy machine is started once more;
        // the second failure is reported with what it wrote to stderr.
        var attempt = 0
        while true {
            attempt += 1
            let (launched, ready) = try await PeerStarts.slots.holding {
                let launched = try Self.launch(python, fullArguments)
                return (launched, try? await launched.output.firstLine(withPrefix: "READY ", timeout: .seconds(45)))
            }
            guard let ready else {
                await launched.process.killAndWait()
                if attempt < 2 { continue }
                throw RootCanal.Failure(description: "\(script) did not start: stdout \(launched.output.lines), stderr \(launched.errors.lines.suffix(15))")
            }
            process = launched.process
            input = launched.input
            output = launched.output
            readyLine = ready
            address = (Self.json(ready)["address"] as? String) ?? ""
            break
        }
        rootCanal.adopt(self)
    }

    private static func launch(_ python: URL, _ arguments: [String]) throws
        -> (process: Process, input: FileHandle, output: LineCollector, errors: LineCollector) {
        let process = Process()
        process.executableURL = python
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let output = LineCollector(stdout.fileHandleForReading)
        let errors = LineCollector(stderr.fileHandleForReading)
        try process.run()
        return (process, stdin.fileHandleForWriting, output, errors)
    }

    /// The JSON of the first line starting with `kind` (on the peer's `connection`th connection,
    /// when given); throws if none comes in time.
    func event(_ kind: String, connection: Int? = nil, timeout: Duration = .seconds(30)) async throws -> [String: Any] {
        let tag = connection.map { "{\"connection\": \($0)," } ?? ""
        guard let line = try await output.firstLine(withPrefix: kind + " " + tag, timeout: timeout) else {
            throw RootCanal.Failure(description: "smp_peer.py ended without \(kind): \(output.lines)")
        }
        return Self.json(line)
    }

    /// The JSON of the `nth` line (from 1) starting with `kind`, for scripts that number their
    /// lines of each kind (`"nth"`, last in the object, as `l2cap_peer.py` does).
    func event(_ kind: String, nth: Int, timeout: Duration = .seconds(30)) async throws -> [String: Any] {
        guard let line = try await output.firstLine(withPrefix: kind + " ", containing: "\"nth\": \(nth)}", timeout: timeout) else {
            throw RootCanal.Failure(description: "the peer ended without \(kind) number \(nth): \(output.lines)")
        }
        return Self.json(line)
    }

    /// The number on the first `PASSKEY n` or `NUMBER n` line.
    func number(_ kind: String) async throws -> UInt32 {
        guard let line = try await output.firstLine(withPrefix: kind + " ", timeout: .seconds(30)),
              let value = UInt32(line.dropFirst(kind.count + 1)) else {
            throw RootCanal.Failure(description: "no \(kind) line: \(output.lines)")
        }
        return value
    }

    /// Answers the peer's `ASK_PASSKEY` with `passkey`.
    func typePasskey(_ passkey: UInt32) async throws {
        _ = try await output.firstLine(withPrefix: "ASK_PASSKEY", timeout: .seconds(30))
        input.write(Data("\(passkey)\n".utf8))
    }

    /// Writes `line` to its standard input (a command for fixtures that take them).
    func say(_ line: String) {
        input.write(Data((line + "\n").utf8))
    }

    /// What its READY line said.
    var ready: [String: Any] { Self.json(readyLine) }

    func has(_ kind: String) -> Bool { output.lines.contains { $0.hasPrefix(kind) } }

    func stop() async {
        await process.killAndWait()
    }

    deinit {
        process.kill()
    }

    /// The JSON object in `line` (after its first `{`), empty when there is none.
    static func json(_ line: String) -> [String: Any] {
        guard let start = line.firstIndex(of: "{"),
              let object = try? JSONSerialization.jsonObject(with: Data(line[start...].utf8)) as? [String: Any] else { return [:] }
        return object
    }
}
