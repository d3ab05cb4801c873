import StrobeBase
import Synchronization
/// SplitMix64: a small, fast generator whose whole state is one seed, so that a simulated
/// world's latency, jitter and loss repeat exactly from run to run.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `p` (0...1).
    package mutating func chance(_ p: Double) -> Bool {
        p > 0 && Double(next() >> 11) / Double(1 << 53) < p
    }
}

/// Random octets from a seeded generator, for the parts of a simulated world that draw random
/// values (pairing's nonces and keys), so that a seed replays a run byte for byte.
package final class SeededRandomSource: Sendable {
    private let generator: Lock<SeededGenerator>

    package init(seed: UInt64) { generator = Lock(SeededGenerator(seed: seed)) }

    package func bytes(_ count: Int) -> [UInt8] {
        generator.withLock { g in (0..<count).map { _ in UInt8(truncatingIfNeeded: g.next()) } }
    }
}
