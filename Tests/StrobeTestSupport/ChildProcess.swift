import Foundation
import Synchronization

/// Runs a program to its end, as a user would from a shell, and captures what it printed. The
/// child, its pipes and its exit are waited for off the cooperative pool (`offPool`).
package enum ChildProcess {
    package struct Output: Sendable {
        package var status: Int32
        package var stdout: String
        package var stderr: String
    }

    /// `stdin`'s bytes go to its standard input (else it reads an empty one); standard error is
    /// captured beside standard output, on a thread of its own so that neither pipe fills.
    package static func run(_ executable: URL, _ arguments: [String], stdin: Data? = nil,
                            environment: [String: String]? = nil, directory: String? = nil) async throws -> Output {
        _ = ignoringBrokenPipes
        return try await offPool {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            if let environment { process.environment = environment }
            if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
            let input = Pipe(), out = Pipe(), err = Pipe()
            process.standardInput = stdin == nil ? FileHandle.nullDevice : input
            process.standardOutput = out
            process.standardError = err
            try process.run()
            if let stdin {
                // Written on a thread of its own too: a child that prints before it reads would
                // otherwise wait on a full stdout pipe while this waits on its full stdin.
                // A child that exits without reading all of it makes the write fail: its status says why.
                Thread.detachNewThread {
                    try? input.fileHandleForWriting.write(contentsOf: stdin)
                    try? input.fileHandleForWriting.close()
                }
            }
            let errData = Mutex(Data())
            // Waited on by this thread, which is not the pool's.
            let errDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let data = err.fileHandleForReading.readDataToEndOfFile()
                errData.withLock { $0 = data }
                errDone.signal()
            }
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            errDone.wait()
            process.waitUntilExit()
            return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                          stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self))
        }
    }

    /// A child that exits before reading all of its input makes the write fail with EPIPE
    /// instead of ending the test process with SIGPIPE.
    private static let ignoringBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// The program named `name` on PATH, if any.
    package static func onPath(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
