/// What was wrong with an Events notification. A notification that fails is dropped whole: with
/// a length that is not a multiple of 3 there is no telling where its records start.
package enum GripDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The notification has no bytes.
    case empty
    /// The length is not a whole number of 3-byte records.
    case partialRecord(length: Int)

    /// A one-line message that names the problem and the length.
    package var description: String {
        switch self {
        case .empty: "empty grip events notification"
        case .partialRecord(let length): "grip events notification of \(length) bytes is not a whole number of 3-byte records"
        }
    }
}
