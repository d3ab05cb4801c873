extension Sequence where Element == LEConnection {
    /// Disconnects every link, even when one fails to; the first failure is thrown after. What
    /// a kit's `stop`, `disable` or `close` does with the links it holds.
    public func disconnectAll() async throws(StrobeError) {
        var failure: StrobeError?
        for connection in self {
            do { _ = try await connection.disconnect() } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }
}
