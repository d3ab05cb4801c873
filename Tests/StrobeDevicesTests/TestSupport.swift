/// A virtual instant: time advances only when a test says so.
struct VirtualInstant: InstantProtocol, CustomStringConvertible {
    var offset: Duration

    static let zero = VirtualInstant(offset: .zero)

    func advanced(by duration: Duration) -> VirtualInstant { VirtualInstant(offset: offset + duration) }
    func duration(to other: VirtualInstant) -> Duration { other.offset - offset }
    static func < (lhs: VirtualInstant, rhs: VirtualInstant) -> Bool { lhs.offset < rhs.offset }

    var description: String { "\(offset)" }
}

/// ASCII bytes of a V1 frame written as text.
func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Runs `body` over a byte array as a raw buffer (typed errors are kept).
@discardableResult
func withBuffer<T, E: Error>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
    let result: Result<T, E> = bytes.withUnsafeBytes { raw in Result { () throws(E) -> T in try body(raw) } }
    return try result.get()
}

/// The error a typed-throwing call throws, or `nil` when it succeeds.
func thrownError<T, E: Error>(_ body: () throws(E) -> T) -> E? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
