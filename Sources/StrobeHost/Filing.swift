/// Runs `body` and files whatever it throws as the caller's one error type: how each public
/// layer (the host, a kit, the lights) throws a single typed error that keeps the cause.
package func filing<E: Error, T>(
    _ file: (any Error) -> E, _ body: () async throws -> T
) async throws(E) -> T {
    do {
        return try await body()
    } catch {
        throw file(error)
    }
}

/// `filing(_:_:)` for the host's own calls: what they throw becomes a `StrobeError`.
package func filingErrors<T>(_ body: () async throws -> T) async throws(StrobeError) -> T {
    try await filing(StrobeError.init, body)
}
