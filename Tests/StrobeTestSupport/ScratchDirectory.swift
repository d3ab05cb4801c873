import Foundation

/// A directory of a test's own under the system's temporary directory, for files a test makes
/// (and those made beside them, such as a bond store's lock file): `remove()` takes it and all
/// it holds. A value, so that removing is said where it happens (`defer { scratch.remove() }`),
/// not left to when the last reference goes.
package struct ScratchDirectory: Sendable {
    package let path: String

    /// Makes `NAME-UUID` under the temporary directory.
    package init(_ name: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` inside (not created).
    package func path(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// The URL of `name` inside (not created).
    package func url(_ name: String) -> URL { URL(fileURLWithPath: path(name)) }

    package func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
