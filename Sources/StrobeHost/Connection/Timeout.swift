/// A per-operation time limit, for the conveniences apps expect on top of the stack's own
/// timeouts (ATT's 30 s, HCI's command timeout): the operation is cancelled at the limit and
/// `OperationTimeout` thrown.
package func withTimeout<T: Sendable>(
    _ limit: Duration, clock: any Clock<Duration>, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await clock.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw OperationTimeout(limit: limit) }
        return value
    }
}

package struct OperationTimeout: Error, Sendable, Hashable, CustomStringConvertible {
    package var limit: Duration
    package init(limit: Duration) { self.limit = limit }
    package var description: String { "the operation did not finish within \(limit)" }
}
