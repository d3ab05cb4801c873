import Foundation
import Synchronization

/// Runs the built `strobe` executable as a user would, and captures what it printed.
struct StrobeCommand {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], environment: [String: String]? = nil, in directory: String? = nil) async throws -> Result {
        try await run(executable: RepositoryPaths.strobeExecutable, arguments, environment: environment, in: directory)
    }

    static func run(executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                    in directory: String? = nil) async throws -> Result {
        try await offPool {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            if let environment { process.environment = environment }
            if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            // Read stderr on a second thread while this one reads stdout, so that a chatty child
            // never blocks on a full pipe.
            let errData = Mutex(Data())
            let errDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let data = err.fileHandleForReading.readDataToEndOfFile()
                errData.withLock { $0 = data }
                errDone.signal()
            }
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            errDone.wait()
            process.waitUntilExit()
            return Result(
                status: process.terminationStatus,
                stdout: String(decoding: stdout, as: UTF8.self),
                stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self))
        }
    }
}
