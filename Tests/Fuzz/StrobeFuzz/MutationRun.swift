import Foundation
import StrobeSim

/// The fuzz targets without libFuzzer, for the test command: every input of the corpora, then a
/// fixed number of mutations of them, from a generator seeded by the target's name, so that
/// every run feeds the same inputs. No coverage guidance and no sanitizer (`Scripts/fuzz.sh`
/// campaigns have both); what it keeps is that no target traps or hangs on its corpus or near it.
///
/// Each input is written to `artifact` before it runs: when a trap ends the process, the file
/// holds the input that did it. One that runs past `timeoutSeconds` ends it the same way (the
/// alarm signal, set again before each input).
struct MutationRun {
    let target: FuzzTarget
    let corpus: [[UInt8]]
    let mutations: Int
    let artifact: String
    var timeoutSeconds: UInt32 = 10

    static let maximumLength = 8192

    /// Runs every input.
    func run() throws {
        guard FileManager.default.createFile(atPath: artifact, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: artifact])
        }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: artifact))
        defer { try? file.close() }

        func feed(_ input: [UInt8]) throws {
            try file.truncate(atOffset: 0)
            try file.write(contentsOf: input)
            alarm(timeoutSeconds)
            input.withUnsafeBytes { target.run($0) }
        }
        for input in corpus { try feed(input) }
        var generator = SeededGenerator(seed: Self.seed(target.name))
        let pool = corpus.isEmpty ? [[]] : corpus
        for _ in 0..<mutations {
            try feed(Self.mutate(pool[Int(generator.next() % UInt64(pool.count))], pool: pool, using: &generator))
        }
        alarm(0)
        try FileManager.default.removeItem(atPath: artifact)
    }

    /// One to four edits of `input`: flipped bits, bytes set to edge values, lengths written
    /// over it, ranges inserted, deleted or repeated, or its tail taken from another input.
    static func mutate(_ input: [UInt8], pool: [[UInt8]], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        func position(_ extra: Int = 0) -> Int { Int(generator.next() % UInt64(bytes.count + extra)) }
        for _ in 0...(generator.next() % 4) {
            switch generator.next() % 8 {
            case 0 where !bytes.isEmpty:
                bytes[position()] ^= 1 << (generator.next() % 8)
            case 1 where !bytes.isEmpty:
                bytes[position()] = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF][Int(generator.next() % 6)]
            case 2 where bytes.count >= 2:
                // A length field's worth: small, at the edge of a byte, or huge.
                let value = [0, 1, 0xFF, 0x100, 0x7FFF, 0xFFFF, Int(generator.next() % 64)][Int(generator.next() % 7)]
                let at = Int(generator.next() % UInt64(bytes.count - 1))
                bytes[at] = UInt8(value & 0xFF)
                bytes[at + 1] = UInt8(value >> 8)
            case 3:
                let count = Int(generator.next() % 16) + 1
                bytes.insert(contentsOf: (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }, at: position(1))
            case 4 where !bytes.isEmpty:
                let start = position()
                bytes.removeSubrange(start..<min(bytes.count, start + Int(generator.next() % 32) + 1))
            case 5 where !bytes.isEmpty:
                let start = position()
                let range = start..<min(bytes.count, start + Int(generator.next() % 64) + 1)
                bytes.insert(contentsOf: bytes[range], at: position(1))
            case 6:
                let other = pool[Int(generator.next() % UInt64(pool.count))]
                let cut = position(1)
                let from = other.isEmpty ? 0 : Int(generator.next() % UInt64(other.count))
                bytes = Array(bytes[..<cut]) + other[from...]
            default:
                bytes.append(UInt8(truncatingIfNeeded: generator.next()))
            }
        }
        return Array(bytes.prefix(maximumLength))
    }

    /// FNV-1a of the name: the same target, the same inputs, run after run.
    static func seed(_ name: String) -> UInt64 {
        name.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}
