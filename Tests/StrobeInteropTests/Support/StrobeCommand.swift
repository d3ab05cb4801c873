import Foundation

/// Runs the built `strobe` executable as a user would, and captures what it printed.
struct StrobeCommand {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], environment: [String: String]? = nil) async throws -> Result {
        try await run(executable: RepositoryPaths.strobeExecutable, arguments, environment: environment)
    }

    static func run(executable: URL, _ arguments: [String], environment: [String: String]? = nil) async throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
        let outData = Task.detached { out.fileHandleForReading.readDataToEndOfFile() }
        let errData = Task.detached { err.fileHandleForReading.readDataToEndOfFile() }
        try process.run()
        let stdout = await outData.value
        let stderr = await errData.value
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
