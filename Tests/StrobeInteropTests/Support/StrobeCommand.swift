import Foundation
import StrobeTestSupport

/// Runs the built `strobe` executable as a user would, and captures what it printed.
struct StrobeCommand {
    typealias Result = ChildProcess.Output

    static func run(_ arguments: [String], environment: [String: String]? = nil, in directory: String? = nil) async throws -> Result {
        try await run(executable: RepositoryPaths.strobeExecutable, arguments, environment: environment, in: directory)
    }

    static func run(executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                    in directory: String? = nil) async throws -> Result {
        try await ChildProcess.run(executable, arguments, environment: environment, directory: directory)
    }
}
