import Foundation

/// The repository's Bumble peripheral (Tests/Fixtures/Bumble/peripheral.py) in a child process,
/// for the end-to-end scenario: a Bumble virtual controller reached over H4/TCP.
final class BumbleProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var python: String {
        ProcessInfo.processInfo.environment["STROBE_BUMBLE_PYTHON"] ?? root.appendingPathComponent(".venv-bumble/bin/python").path
    }

    let process = Process()
    let transport: String
    private let output: FileHandle

    init(arguments: [String]) throws {
        if !FileManager.default.isExecutableFile(atPath: Self.python) {
            // A fresh machine: set up the pinned Bumble the way the tests do.
            let setup = Process()
            setup.executableURL = Self.root.appendingPathComponent("Scripts/install-test-deps.sh")
            setup.standardOutput = FileHandle.standardError
            try setup.run()
            setup.waitUntilExit()
        }
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            throw Failure(description: "no Bumble venv at \(Self.python): Scripts/install-test-deps.sh could not create it")
        }
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [Self.root.appendingPathComponent("Tests/Fixtures/Bumble/peripheral.py").path,
                             "--hci-listen", "tcp:127.0.0.1:0"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        output = pipe.fileHandleForReading
        try process.run()
        // The first line says where it listens.
        var line = Data()
        while true {
            let byte = output.readData(ofLength: 1)
            if byte.isEmpty { throw Failure(description: "peripheral.py exited before READY") }
            if byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("READY "), let field = text.split(separator: " ").first(where: { $0.hasPrefix("hci=") }) else {
            throw Failure(description: "unexpected first line from peripheral.py: \(text)")
        }
        transport = String(field.dropFirst(4))
    }

    /// Stops the peripheral and returns its SUMMARY line's JSON.
    func stop() -> [String: Any] {
        if process.isRunning { process.terminate() }
        let rest = String(decoding: output.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let line = rest.split(separator: "\n").first(where: { $0.hasPrefix("SUMMARY ") }),
              let json = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(8).utf8)) as? [String: Any] else { return [:] }
        return json
    }
}
