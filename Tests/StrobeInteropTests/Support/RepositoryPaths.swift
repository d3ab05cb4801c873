import Foundation

/// Where the tests find the repository's own fixtures and the binaries that `swift test` built.
enum RepositoryPaths {
    /// The repository root, found from this file's path.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // Support
        .deletingLastPathComponent() // StrobeInteropTests
        .deletingLastPathComponent() // Tests
        .deletingLastPathComponent()

    static let captures = root.appendingPathComponent("Captures")

    static let bumbleFixtures = root.appendingPathComponent("Tests/Fixtures/Bumble")

    static let faultProxy = root.appendingPathComponent("Tests/Fixtures/Faults/fault_proxy.py")

    /// The Python of the venv that `Scripts/install-test-deps.sh` creates.
    static var bumblePython: URL {
        if let path = ProcessInfo.processInfo.environment["STROBE_BUMBLE_PYTHON"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return root.appendingPathComponent(".venv-bumble/bin/python")
    }

    /// The `strobe` executable built next to the test bundle.
    static var strobeExecutable: URL { builtExecutable("strobe") }

    /// An executable product built next to the test bundle.
    static func builtExecutable(_ name: String) -> URL {
        let buildDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [buildDir, buildDir.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return buildDir.appendingPathComponent(name)
    }
}
