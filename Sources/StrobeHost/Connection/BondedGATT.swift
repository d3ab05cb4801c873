import StrobeBase
import Synchronization

/// What one link keeps with the peer's bond for GATT, both ways: as client, the peer's
/// database (used on the next link while its Database Hash is unchanged); as server, the CCCDs
/// the peer enabled (set again on its next encrypted link, or, when this database changed since,
/// Service Changed indicated for every handle). Restored and saved only on a link whose
/// encryption proved the peer is the bond's (`LinkSecurity.provenBond`), never on the strength
/// of its address.
final class BondedGATT: Sendable {
    private let security: LinkSecurity
    private let gatt: GATTClient
    private let state = Lock(State())

    private struct State {
        var discovered: GATTDatabaseCache?
        var server: GATTServerConnection?
        /// The link's GATT jobs (saves, a rediscovered database's check) run one after another,
        /// each save writing what the link has by then.
        var saving: Task<Void, Never>?
        var usedCache = false
    }

    init(security: LinkSecurity, gatt: GATTClient) {
        self.security = security
        self.gatt = gatt
        security.setSecuredHandler { [weak self] _ in self?.secured() }
        gatt.setRediscoveryHandler { [weak self] database in self?.rediscovered(database) }
    }

    /// Waits until every save started so far is written.
    func saved() async {
        await state.withLock { $0.saving }?.value
    }

    /// Whether the last `database()` took the bond's cache.
    var usedCache: Bool { state.withLock { $0.usedCache } }

    func serving(_ server: GATTServerConnection) {
        state.withLock { $0.server = server }
        server.setConfigurationWrittenHandler { [weak self] in self?.save() }
        if security.level > .none { secured() }
    }

    /// The peer's database: the bond's cache when the peer's Database Hash says it is current,
    /// else discovered (Service Changed subscribed and robust caching enabled for a bonded
    /// peer, so that it will say when it changes).
    func database() async throws -> GATTDatabase {
        state.withLock { $0.usedCache = false }
        // The cache is looked up by address (the link may not be encrypted yet): the peer's own
        // Database Hash decides whether it is used.
        let bond = security.bond
        if let cache = bond?.peerDatabase, cache.isCurrent(currentHash: try await gatt.readDatabaseHash()) {
            await gatt.adopt(cache.database)
            state.withLock {
                $0.discovered = cache
                $0.usedCache = true
            }
            return cache.database
        }
        let database = try await gatt.discoverDatabase(subscribeToServiceChanged: bond != nil)
        let hash = try await verifiedHash(of: database)
        if bond != nil, let features = database.characteristic(.clientSupportedFeatures, inService: .genericAttributeService),
           features.characteristic.properties.contains(.write) {
            // Robust Caching. A server may refuse it (an ATT error: it then keeps no change-aware
            // state for us, and the Database Hash still guards the cache); a link that failed
            // fails discovery.
            do throws(StrobeError) {
                try await gatt.write([0x01], handle: features.characteristic.valueHandle)
            } catch {
                guard case .att = error else { throw error }
            }
        }
        state.withLock { $0.discovered = GATTDatabaseCache(database: database, hash: hash) }
        // Kept before this returns, so that a link that ends now has kept it.
        await save().value
        return database
    }

    /// The link is encrypted: a bonded client's subscriptions come back (while this server's
    /// database is the one they were made on), and what the link has is saved.
    private func secured() {
        guard let bond = security.provenBond else { return }
        if let server = state.withLock({ $0.server }), let kept = bond.clientConfigurations {
            if kept.databaseHash == server.database.hash {
                server.restore(kept.values)
            } else if kept.serviceChanged, let changed = server.database.serviceChanged {
                // The database changed since: the client must discover it again.
                server.restore([changed.configuration: .indication])
                // Not on the save chain: its confirmation may take the ATT timeout. On the host's
                // loop, as the server's answers are.
                Task(executorPreference: security.loop.executor) { [security] in
                    do throws(StrobeError) {
                        try await server.indicate(valueHandle: changed.value, value: [0x01, 0x00, 0xFF, 0xFF])
                    } catch {
                        security.logUnconfirmedServiceChanged(error)
                    }
                }
            }
        }
        save()
    }

    /// The peer's Database Hash when it is the one of `database` as discovered; nil when the
    /// peer has none, or its hash is another (it changed meanwhile, or does not compute it as the
    /// spec says): such a database is discovered again next time.
    private func verifiedHash(of database: GATTDatabase) async throws -> [UInt8]? {
        guard let hash = try await gatt.readDatabaseHash() else { return nil }
        var extendedProperties: [AttributeHandle: [UInt8]] = [:]
        for service in database.services {
            for characteristic in service.characteristics {
                if let descriptor = characteristic.descriptor(.characteristicExtendedProperties) {
                    extendedProperties[descriptor.handle] = try await gatt.read(handle: descriptor.handle)
                }
            }
        }
        return GATTDatabaseHash.hash(database.hashAttributes(extendedProperties: extendedProperties)) == hash ? hash : nil
    }

    private func rediscovered(_ database: GATTDatabase) {
        later {
            let hash = try? await self.verifiedHash(of: database)
            self.state.withLock { $0.discovered = GATTDatabaseCache(database: database, hash: hash) }
            await self.security.manager.callingStore { self.write() }
        }
    }

    @discardableResult
    private func save() -> Task<Void, Never> {
        later { await self.security.manager.callingStore { self.write() } }
    }

    /// Runs `job` after every job queued before it.
    @discardableResult
    private func later(_ job: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        state.withLock { s in
            let previous = s.saving
            let task = Task(executorPreference: security.loop.executor) {
                await previous?.value
                await job()
            }
            s.saving = task
            return task
        }
    }

    private func write() {
        guard let bond = security.provenBond else { return }
        let (cache, server) = state.withLock { ($0.discovered, $0.server) }
        var configurations: GATTClientConfigurations?
        if let values = server?.clientConfigurations, let server, !values.isEmpty {
            let serviceChanged = server.database.serviceChanged.map { values[$0.configuration]?.contains(.indication) == true } ?? false
            configurations = GATTClientConfigurations(databaseHash: server.database.hash, values: values, serviceChanged: serviceChanged)
        }
        do {
            let saved = try security.manager.updateBond(for: bond.peer) { bond in
                if let cache { bond.peerDatabase = cache }
                if server != nil { bond.clientConfigurations = configurations }
            }
            if !saved { security.logFailedSave("the bond was changed by others five times over, or removed") }
        } catch {
            security.logFailedSave(error)
        }
    }
}
