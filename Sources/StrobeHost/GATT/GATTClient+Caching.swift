/// What robust caching (Vol 3, Part G, 2.5.2) needs of the client: the peer's Database Hash,
/// and a database taken from a cache instead of discovered.
extension GATTClient {
    /// Reads Database Hash (0x2B2A) by type over all handles, as the spec has clients do;
    /// nil when the peer has none.
    public func readDatabaseHash() async throws(StrobeError) -> [UInt8]? {
        try await filingErrors {
            let response: ATTReadByTypeResponse
            do {
                response = try await bearer.request(ATTReadByTypeRequest(
                    startingHandle: .first, endingHandle: .last, attributeType: .databaseHash))
            } catch let error as ATTError where error.code == .attributeNotFound {
                return nil
            }
            guard let entry = response.entries.first, entry.value.count == 16 else {
                throw GATTError.invalidResponse(.readByTypeResponse, reason: "Database Hash of \(response.entries.first?.value.count ?? 0) bytes")
            }
            return entry.value
        }
    }

    /// Takes `database` as the peer's without discovering it, and routes its Service Changed
    /// indications (enabled on an earlier link: a server keeps a bonded client's CCCDs).
    public func adopt(_ database: GATTDatabase) async {
        state.withLock { $0.database = database }
        // Nothing is written when not subscribing: this cannot fail.
        try? await armServiceChanged(in: database, subscribe: false)
    }

    /// Called after each rediscovery that Service Changed started, with the database as it is now.
    func setRediscoveryHandler(_ handler: (@Sendable (GATTDatabase) -> Void)?) {
        state.withLock { $0.onRediscovered = handler }
    }
}
