/// What was wrong with bytes received from (or, in a simulator, sent to) a Nova.
public enum NovaDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value has no bytes.
    case empty
    /// V1: the bytes are not `(II:BODY)`.
    case missingFraming(length: Int)
    /// V1: a field that must be upper- or lower-case hex digits is not.
    case invalidHex(field: String)
    /// V1: a body other than `P`, `O`, `A` or `L,WW,CC,TTTT`, with its length.
    case unknownBody(length: Int)
    /// V2: a command byte outside 0...4.
    case unknownCommand(UInt8)
    /// V2: the padding byte after the command is not 0.
    case nonZeroPadding(UInt8)
    /// A message whose length does not match its kind.
    case unexpectedLength(message: String, expected: Int, actual: Int)
    /// A value made of fixed-size items (`itemSize` bytes each) whose length is not a multiple.
    case notWholeItems(message: String, itemSize: Int, actual: Int)
    /// A valid message that does not belong where it arrived (e.g. a request on the response
    /// characteristic).
    case unexpectedMessage(String)

    /// A one-line message that names the model, the problem and the offending value or length.
    public var description: String {
        switch self {
        case .empty: "empty Nova message"
        case .missingFraming(let length): "Nova V1 message (\(length) bytes) is not framed as (II:BODY)"
        case .invalidHex(let field): "Nova V1 \(field) is not hex digits"
        case .unknownBody(let length): "Nova V1 body (\(length) bytes) is not P, O, A or L,WW,CC,TTTT"
        case .unknownCommand(let command): "unknown Nova V2 command \(command)"
        case .nonZeroPadding(let value): "Nova V2 padding byte is \(value), not 0"
        case .unexpectedLength(let message, let expected, let actual):
            "Nova \(message) must be \(expected) bytes, got \(actual)"
        case .notWholeItems(let message, let itemSize, let actual):
            "Nova \(message) must be a multiple of \(itemSize) bytes, got \(actual)"
        case .unexpectedMessage(let message): "unexpected Nova \(message)"
        }
    }
}
