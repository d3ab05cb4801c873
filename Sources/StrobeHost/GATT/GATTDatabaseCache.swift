/// A bonded peer's database as this host's client last discovered it, kept with the bond so
/// that the next link need not discover it again (robust caching, Vol 3, Part G, 2.5.2).
package struct GATTDatabaseCache: Sendable, Hashable, Codable {
    package var database: GATTDatabase
    /// The peer's Database Hash when it was discovered; nil when the peer has none.
    package var hash: [UInt8]?

    package init(database: GATTDatabase, hash: [UInt8]?) {
        self.database = database
        self.hash = hash
    }

    /// Whether the cache still describes a peer whose Database Hash reads `currentHash` (nil:
    /// the peer has no Database Hash). With a hash, only the same hash will do; without one the
    /// cache stands only when the peer has Service Changed, which tells a bonded client of every
    /// change (Vol 3, Part G, 2.5.2), and never when the hash appeared or went away.
    package func isCurrent(currentHash: [UInt8]?) -> Bool {
        switch (hash, currentHash) {
        case (let kept?, let current?): kept == current
        case (nil, nil): database.characteristic(.serviceChanged, inService: .genericAttributeService) != nil
        default: false
        }
    }
}

/// The Client Characteristic Configuration values a bonded client set on this host's GATT
/// server, kept with its bond (Vol 3, Part G, 3.3.3.3) and set again on its next encrypted
/// link while the database is the one they were set on; when it changed, Service Changed is
/// indicated for every handle instead.
package struct GATTClientConfigurations: Sendable, Hashable, Codable {
    /// This server's Database Hash when they were set: a changed database drops them.
    package var databaseHash: [UInt8]
    /// By CCCD handle; only enabled ones.
    package var values: [AttributeHandle: GATTClientConfiguration]
    /// Whether Service Changed indications were among them: after a change of database they are
    /// the one thing kept, and the client is told (Vol 3, Part G, 7.1).
    package var serviceChanged: Bool

    package init(databaseHash: [UInt8], values: [AttributeHandle: GATTClientConfiguration], serviceChanged: Bool = false) {
        self.databaseHash = databaseHash
        self.values = values
        self.serviceChanged = serviceChanged
    }
}
