/// What was wrong with a Samples notification. A batch that fails is dropped whole.
public enum StylusDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Shorter than the 4-byte batch header.
    case truncatedHeader(length: Int)
    /// `count` is 0: a batch carries at least one sample.
    case emptyBatch(sequence: UInt16)
    /// The length does not match `count` samples (too short or too long).
    case lengthMismatch(count: Int, hasPositions: Bool, expected: Int, actual: Int)
    /// A pressure above the 12-bit maximum.
    case pressureOutOfRange(sampleIndex: Int, value: UInt16)

    /// A one-line message that names the problem, the lengths or the offending value.
    public var description: String {
        switch self {
        case .truncatedHeader(let length): "stylus batch of \(length) bytes is shorter than its 4-byte header"
        case .emptyBatch(let sequence): "stylus batch \(sequence) has a sample count of 0"
        case .lengthMismatch(let count, let hasPositions, let expected, let actual):
            "stylus batch of \(count) samples\(hasPositions ? " with positions" : "") must be \(expected) bytes, got \(actual)"
        case .pressureOutOfRange(let index, let value):
            "stylus sample \(index) has pressure \(value), above the 12-bit maximum 4095"
        }
    }
}
