import Foundation

/// Scenes kept by the host in a JSON file (an array of `Scene`), for backends whose lights keep
/// none: the LAN protocol and Bluetooth lights. A missing file is no scenes; an unreadable or
/// corrupt one is an error that names it.
public struct LocalScenes: Sendable, Hashable {
    /// The JSON file the scenes are read from.
    public var file: URL

    /// Scenes kept in `file` (see `defaultFile`).
    public init(file: URL) { self.file = file }

    /// `$XDG_STATE_HOME/strobe/scenes.json`, or `~/.local/state/strobe/scenes.json`.
    public static var defaultFile: URL {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_STATE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".local/state")
        return base.appendingPathComponent("strobe/scenes.json")
    }

    /// Reads the scenes; no file is no scenes. Throws `LightsError.scenesFile` when the file
    /// cannot be read or is not a JSON array of `Scene`.
    public func load() throws(LightsError) -> [Scene] {
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        do {
            return try JSONDecoder().decode([Scene].self, from: Data(contentsOf: file))
        } catch let error as DecodingError {
            throw .scenesFile(path: file.path, reason: "\(error)")
        } catch {
            throw .scenesFile(path: file.path, reason: error.localizedDescription)
        }
    }
}
