import Foundation

/// One JSON object per line, keys in a stable order so output can be diffed.
enum JSONOutput {
    static func print(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        StrobeCLI.print(String(decoding: data, as: UTF8.self))
    }
}
