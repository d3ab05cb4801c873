import Foundation
import StrobeTestSupport
import StrobeBase
import Synchronization

/// A Bumble virtual LE controller linked to a Bumble GATT peripheral, in its own Python process
/// (`Tests/Fixtures/Bumble/peripheral.py`), reached over H4/TCP on an ephemeral loopback port.
/// A real peer written by someone else: Strobe's interop tests run against it.
final class BumblePeripheral: Sendable {
    struct LaunchError: Error, CustomStringConvertible {
        var description: String
    }

    /// `tcp:127.0.0.1:PORT`, as the `strobe --transport` option takes it.
    let transport: String
    let name: String
    private let process: Process
    private let output: LineCollector

    /// Starts the peripheral and waits for its `READY` line (port listening, already advertising).
    /// `script` is one of the fixture's peripherals: `peripheral.py` (the GATT test device) or
    /// `nova.py` (Nova flashes).
    /// Python starting Bumble takes a second of CPU; on a loaded 2-core machine with many fixtures
    /// starting at once, tens of seconds, hence the generous `readyTimeout`.
    init(script: String = "peripheral.py", arguments: [String] = [], readyTimeout: Duration = .seconds(90)) async throws {
        let python = RepositoryPaths.bumblePython
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw LaunchError(description: "no Bumble venv at \(python.path): run Scripts/test.sh (it creates it)")
        }
        let (process, output, ready) = try await PeerStarts.slots.holding {
            let (process, output) = try LineCollector.launch(
                python, [RepositoryPaths.bumbleFixtures.appendingPathComponent(script).path,
                         "--hci-listen", "tcp:127.0.0.1:0", "--timeout", "120"] + arguments)
            return (process, output, try await output.firstLine(withPrefix: "READY ", timeout: readyTimeout))
        }
        self.process = process
        self.output = output

        guard let ready else {
            process.terminate()
            throw LaunchError(description: "peripheral.py exited before READY: \(output.lines.joined(separator: "\n"))")
        }
        let fields = Self.fields(of: ready)
        guard let hci = fields["hci"], let name = fields["name"] else {
            process.terminate()
            throw LaunchError(description: "unexpected READY line: \(ready)")
        }
        self.transport = hci
        self.name = name
    }

    /// Waits for the fixture to finish on its own (as `central.py` does) and returns its `SUMMARY` JSON.
    func finished(timeout: Duration = .seconds(60)) async throws -> [String: Any] {
        guard let line = try await output.firstLine(withPrefix: "SUMMARY ", timeout: timeout) else {
            throw LaunchError(description: "the fixture ended without SUMMARY: \(output.lines.joined(separator: "\n"))")
        }
        let json = try JSONSerialization.jsonObject(with: Data(line.dropFirst("SUMMARY ".count).utf8))
        return json as? [String: Any] ?? [:]
    }

    /// Stops the peripheral (SIGTERM) and returns its `SUMMARY` JSON.
    func stop() async throws -> [String: Any] {
        if process.isRunning { process.terminate() }
        guard let line = try await output.firstLine(withPrefix: "SUMMARY ", timeout: .seconds(30)) else {
            throw LaunchError(description: "peripheral.py ended without SUMMARY: \(output.lines.joined(separator: "\n"))")
        }
        let process = self.process
        _ = await process.exitStatus()
        let json = try JSONSerialization.jsonObject(with: Data(line.dropFirst("SUMMARY ".count).utf8))
        return json as? [String: Any] ?? [:]
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    private static func fields(of line: String) -> [String: String] {
        var result: [String: String] = [:]
        for token in line.split(separator: " ") {
            let parts = token.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { result[String(parts[0])] = String(parts[1]) }
        }
        return result
    }
}

/// Collects a child's stdout line by line on a reader thread; waiters are woken by each new line.
final class LineCollector: Sendable {
    private struct State {
        var lines: [String] = []
        var ended = false
        var waiters: [UUID: (matches: @Sendable (String) -> Bool, continuation: CheckedContinuation<String?, Never>)] = [:]
    }
    private let state = Lock(State())

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    self.append(line)
                }
            }
            self.finish()
        }
        thread.start()
    }

    var lines: [String] { state.withLock { $0.lines } }

    /// Starts `executable` with its stdout collected here and its stderr dropped.
    static func launch(_ executable: URL, _ arguments: [String]) throws -> (Process, LineCollector) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        let output = LineCollector(stdout.fileHandleForReading)
        try process.run()
        return (process, output)
    }

    /// The first line starting with `prefix`, `nil` if the stream ended without one.
    /// `timeout` bounds the wait on an external process; it is not a substitute for synchronisation.
    func firstLine(withPrefix prefix: String, timeout: Duration) async throws -> String? {
        try await firstLine(withPrefix: prefix, containing: "", timeout: timeout)
    }

    /// The first line starting with `prefix` and containing `text`.
    func firstLine(withPrefix prefix: String, containing text: String, timeout: Duration) async throws -> String? {
        try await firstLine(timeout: timeout, describedAs: "starting with \(prefix)") {
            $0.hasPrefix(prefix) && (text.isEmpty || $0.contains(text))
        }
    }

    /// The first line that `matches`, `nil` if the stream ended without one.
    func firstLine(timeout: Duration, describedAs description: String, where matches: @escaping @Sendable (String) -> Bool)
        async throws -> String? {
        let id = UUID()
        return try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let immediate: String?? = self.state.withLock { state in
                        if let line = state.lines.first(where: matches) { return .some(line) }
                        if state.ended { return .some(nil) }
                        state.waiters[id] = (matches, continuation)
                        return nil
                    }
                    if let immediate { continuation.resume(returning: immediate) }
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                // On a machine busy enough to delay this task, the line may have come meanwhile.
                if let line = self.lines.first(where: matches) { return line }
                throw BumblePeripheral.LaunchError(description: "no line \(description) within \(timeout); got: \(self.lines)")
            }
            defer {
                group.cancelAll()
                let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.continuation.resume(returning: nil)
            }
            return try await group.next()!
        }
    }

    private func append(_ line: String) {
        let ready = state.withLock { state -> [CheckedContinuation<String?, Never>] in
            state.lines.append(line)
            let matching = state.waiters.filter { $0.value.matches(line) }
            for key in matching.keys { state.waiters.removeValue(forKey: key) }
            return matching.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: line) }
    }

    private func finish() {
        let waiting = state.withLock { state -> [CheckedContinuation<String?, Never>] in
            state.ended = true
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in waiting { continuation.resume(returning: nil) }
    }
}
