import Foundation

/// Output of `--json` commands: one JSON object per line.
enum JSONLines {
    struct NotAnObject: Error, CustomStringConvertible {
        var line: String
        var description: String { "not a JSON object: \(line)" }
    }

    static func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw NotAnObject(line: String(line))
            }
            return object
        }
    }
}
