import StrobeHCI
import StrobeBase
import Synchronization

/// The peripheral role: advertises, and serves a GATT database to every central that connects,
/// advertising again after each disconnect while it is running.
public final class Peripheral: Sendable {
    /// The central whose controller and connections this peripheral uses; it hands over the links
    /// where a peer connected.
    public let central: Central
    /// The database served to every central that connects, with the GAP and GATT services added unless it had them.
    public let database: GATTAttributeDatabase
    /// The GAP and GATT services this peripheral added to the database (nil when the database
    /// brought its own).
    package let genericServices: GATTGenericServices?
    private let advertiser: LEAdvertiser
    private let state = Lock(State())

    private struct State {
        var advertising: (data: AdvertisingData, scanResponse: AdvertisingData?, interval: Duration)?
        var connections: [LEConnection] = []
    }

    private let incoming = AsyncBroadcast<LEConnection>()

    /// What the advertising task is asked to do, in order: its commands go out one after another.
    private enum AdvertisingJob: Sendable {
        /// A central's link (served by the GATT server `server`) is down: advertise again.
        case disconnected(server: GATTServerConnectionID)
        /// The private address is due for rotation.
        case rotateAddress
    }

    private let jobs: AsyncStream<AdvertisingJob>.Continuation

    /// `central` owns the controller's connections; this takes the ones where a peer connected.
    /// The GAP service (with `genericAccess`; `startAdvertising(name:)` sets its Device Name)
    /// and the GATT service are added after the database's own services, unless it has them.
    package init(central: Central, database: GATTAttributeDatabase,
                genericAccess: GATTGenericAccess = GATTGenericAccess(deviceName: "Strobe")) {
        self.central = central
        self.database = database
        genericServices = database.hasPrimaryService(.genericAccessService) || database.hasPrimaryService(.genericAttributeService)
            ? nil : GATTGenericServices(adding: genericAccess, to: database)
        advertiser = LEAdvertiser(controller: central.controller)
        let (stream, jobs) = AsyncStream.makeStream(of: AdvertisingJob.self)
        self.jobs = jobs
        central.setIncomingConnectionHandler { [weak self] connection in self?.accepted(connection) }
        central.setAddressRotationHandler { jobs.yield(.rotateAddress) }
        // On the host's loop: advertising resumes after a central leaves, the app's pool busy or not.
        Task(executorPreference: central.controller.loop.executor) { [weak self] in
            for await job in stream {
                guard let self else { return }
                await self.run(job)
            }
        }
    }

    deinit {
        jobs.finish()
    }

    /// Centrals connected to this peripheral now.
    public var connections: [LEConnection] { state.withLock { $0.connections.filter(\.isConnected) } }

    /// Each central as it connects (already served the database).
    public func incomingConnections() -> AsyncStream<LEConnection> { incoming.stream() }

    /// Advertises a complete local name (and service UUIDs in the scan response).
    public func startAdvertising(name: String, serviceUUIDs: [BluetoothUUID] = [], interval: Duration = .milliseconds(100)) async throws(StrobeError) {
        try await filingErrors {
            genericServices?.genericAccess.deviceName = name
            let data = AdvertisingData(structures: [.flags([.leGeneralDiscoverable, .brEdrNotSupported]), .localName(name, complete: true)])
            let response = serviceUUIDs.isEmpty ? nil : AdvertisingData(structures: serviceUUIDs.map { uuid in
                .serviceUUIDs([uuid], width: uuid.shortestWidth, complete: true)
            })
            try await startAdvertising(data: data, scanResponse: response, interval: interval)
        }
    }

    /// Advertises `data` and `scanResponse` (each at most 31 bytes) every `interval` (20 ms ... 10.24 s)
    /// from the central's own address, and again after every disconnect until `stopAdvertising`.
    /// Throws `StrobeError.advertising(.dataTooLong)`, or `.controller` when a command fails.
    public func startAdvertising(data: AdvertisingData, scanResponse: AdvertisingData?, interval: Duration) async throws(StrobeError) {
        try await filingErrors {
            state.withLock { $0.advertising = (data, scanResponse, interval) }
            try await advertise(data: data, scanResponse: scanResponse, interval: interval)
        }
    }

    /// Stops advertising, also the advertising that would follow a disconnect; connected centrals
    /// stay connected.
    /// Throws `StrobeError.controller` when the command fails.
    public func stopAdvertising() async throws(StrobeError) {
        try await filingErrors {
            state.withLock { $0.advertising = nil }
            try await advertiser.stop()
        }
    }

    /// Notifies every subscribed central; returns how many were notified.
    @discardableResult
    public func notify(valueHandle: AttributeHandle, value: [UInt8]) async -> Int {
        var sent = 0
        for connection in connections {
            if let server = connection.server, (try? await server.notify(valueHandle: valueHandle, value: value)) == true { sent += 1 }
        }
        return sent
    }

    /// Tells every connected client that enabled Service Changed indications that the
    /// attributes in `range` changed; returns how many confirmed.
    @discardableResult
    public func indicateServiceChanged(_ range: ClosedRange<AttributeHandle>) async -> Int {
        guard let handle = genericServices?.serviceChanged.valueHandle else { return 0 }
        let value = [range.lowerBound.rawValue, range.upperBound.rawValue].flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        var confirmed = 0
        for connection in connections {
            if let server = connection.server, (try? await server.indicate(valueHandle: handle, value: value)) == true { confirmed += 1 }
        }
        return confirmed
    }

    private func accepted(_ connection: LEConnection) {
        let server = connection.serve(database)
        state.withLock { s in
            s.connections.removeAll { !$0.isConnected }
            s.connections.append(connection)
        }
        incoming.yield(connection)
        // Legacy advertising stops when a connection is made: advertise again after it ends.
        connection.whenDisconnected { [jobs] _ in jobs.yield(.disconnected(server: server.id)) }
    }

    private func run(_ job: AdvertisingJob) async {
        switch job {
        case .disconnected(let server):
            genericServices?.forget(server)
            guard let advertising = state.withLock({ $0.advertising }) else { return }
            do {
                try await advertise(data: advertising.data, scanResponse: advertising.scanResponse, interval: advertising.interval)
            } catch {
                central.controller.logger.warning("advertising again after a disconnect failed", metadata: ["error": "\(error)"])
            }
        case .rotateAddress:
            // Advertising (when on, and no central is connected) restarts from a new address.
            guard let advertising = state.withLock({ $0.advertising }), connections.isEmpty else { return }
            do {
                try await advertiser.stop()
            } catch {
                // Advertising again says whether it still runs.
                central.controller.logger.warning("stopping advertising for a new private address failed", metadata: ["error": "\(error)"])
            }
            do {
                try await advertise(data: advertising.data, scanResponse: advertising.scanResponse, interval: advertising.interval)
            } catch {
                central.controller.logger.warning("advertising from a new private address failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// From the central's own address (a private one rotated when due).
    private func advertise(data: AdvertisingData, scanResponse: AdvertisingData?, interval: Duration) async throws {
        let own = try await central.prepareOwnAddress()
        try await advertiser.start(data: data, scanResponse: scanResponse, interval: interval,
                                   randomAddress: own.type == .public ? nil : own.address)
    }
}
