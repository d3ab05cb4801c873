/// Runs a typed-throwing decoder over an array's bytes (`withUnsafeBytes` only rethrows untyped).
func decoding<T, E: Error>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
    let result: Result<T, E> = bytes.withUnsafeBytes { raw in Result { () throws(E) -> T in try body(raw) } }
    return try result.get()
}
