import StrobeHCI
import StrobeHost
import StrobeSecurity

/// A connected device as an app uses it: its services and characteristics by UUID (discovered
/// on first use, or taken from the bond's cache), read, write, subscribe, pair and disconnect.
///
/// A peer is a view of one `LEConnection`; the connection stays reachable for what the view
/// does not offer (L2CAP channels, PHY, data length, counters).
public final class Peer: Sendable, CustomStringConvertible {
    /// The link this peer is a view of.
    public let connection: LEConnection

    /// A view of `connection`.
    public init(_ connection: LEConnection) {
        self.connection = connection
    }

    /// The address the peer connected from (a private one unless the controller resolved it).
    public var address: BluetoothAddress { connection.peerAddress }
    /// Public, random, or an identity the controller resolved.
    public var addressType: LEAddressType { connection.peerAddressType }
    /// The ATT MTU both sides use: a notification or Write Command carries at most `mtu - 3` bytes.
    public var mtu: Int { connection.mtu }
    /// Whether the link is up.
    public var isConnected: Bool { connection.isConnected }
    /// The peer's address and its type.
    public var description: String { "peer \(address) (\(addressType))" }

    // MARK: Services and characteristics

    /// The peer's services with their characteristics and descriptors: discovered once per
    /// connection (or taken from a bonded peer's cache when its Database Hash still matches).
    public func services() async throws(StrobeError) -> [GATTDatabase.Service] {
        if let known = connection.gatt.database { return known.services }
        return try await connection.discoverDatabase().services
    }

    /// The service with this UUID (the first, if the peer has several).
    public func service(_ uuid: BluetoothUUID) async throws(StrobeError) -> GATTDatabase.Service {
        guard let service = try await services().first(where: { $0.service.uuid == uuid }) else {
            throw .peer(.noService(uuid))
        }
        return service
    }

    /// The one characteristic with this UUID. Throws `StrobeError.peer(.noCharacteristic)`, or
    /// `.peer(.ambiguousCharacteristic)` when several services have one (name the service).
    public func characteristic(_ uuid: BluetoothUUID) async throws(StrobeError) -> GATTCharacteristic {
        try Self.one(uuid, among: try await services().flatMap(\.characteristics))
    }

    /// The characteristic with this UUID in the service with `service`'s UUID.
    public func characteristic(_ uuid: BluetoothUUID, in service: BluetoothUUID) async throws(StrobeError) -> GATTCharacteristic {
        try Self.one(uuid, among: try await self.service(service).characteristics)
    }

    /// The characteristic whose value is at `valueHandle`.
    public func characteristic(valueHandle: AttributeHandle) async throws(StrobeError) -> GATTCharacteristic {
        let all = try await services().flatMap(\.characteristics).map(\.characteristic)
        guard let found = all.first(where: { $0.valueHandle == valueHandle }) else {
            throw .peer(.noCharacteristicAt(valueHandle))
        }
        return found
    }

    private static func one(_ uuid: BluetoothUUID, among all: [GATTDatabase.Characteristic]) throws(StrobeError) -> GATTCharacteristic {
        let matches = all.map(\.characteristic).filter { $0.uuid == uuid }
        guard let first = matches.first else { throw .peer(.noCharacteristic(uuid)) }
        guard matches.count == 1 else { throw .peer(.ambiguousCharacteristic(uuid, valueHandles: matches.map(\.valueHandle))) }
        return first
    }

    // MARK: Reading and writing

    /// The characteristic's whole value (with Read Blob when it is longer than one response).
    public func read(_ uuid: BluetoothUUID) async throws(StrobeError) -> [UInt8] {
        try await read(try await characteristic(uuid))
    }

    /// The characteristic's whole value, for a characteristic already found.
    public func read(_ characteristic: GATTCharacteristic) async throws(StrobeError) -> [UInt8] {
        try await connection.gatt.readLong(handle: characteristic.valueHandle)
    }

    /// Writes the value: with a response (a long write when it does not fit one request), or
    /// as a Write Command, which the peer does not answer.
    public func write(_ value: [UInt8], to uuid: BluetoothUUID, withResponse: Bool = true) async throws(StrobeError) {
        try await write(value, to: try await characteristic(uuid), withResponse: withResponse)
    }

    /// Writes the value to a characteristic already found (see `write(_:to:withResponse:)`).
    public func write(_ value: [UInt8], to characteristic: GATTCharacteristic, withResponse: Bool = true) async throws(StrobeError) {
        _ = try await connection.gatt.write(value, handle: characteristic.valueHandle, withResponse: withResponse)
    }

    // MARK: Notifications

    /// Subscribes and returns the values as an `AsyncSequence`, which ends when the link does.
    /// A ring of `capacity` values of up to `maxValueSize` bytes sits between the link and the
    /// consumer: a consumer that falls behind loses the newest values, counted in the
    /// sequence's `counters`, and never slows the link.
    public func subscribe(_ uuid: BluetoothUUID, indications: Bool = false, capacity: Int = 256, maxValueSize: Int = 512)
        async throws(StrobeError) -> NotificationSequence {
        let ring = NotificationRing(capacity: capacity, maxValueSize: maxValueSize)
        try await subscribe(uuid, indications: indications, handler: ring)
        return ring.notifications()
    }

    /// Subscribes with a handler the link's reader thread calls for each value, with the bytes
    /// borrowed from the receive buffer: the zero-copy path for high rates. Give it a
    /// `NotificationRing` to drain from a loop of your own.
    public func subscribe(_ uuid: BluetoothUUID, indications: Bool = false, handler: any ATTValueHandler) async throws(StrobeError) {
        try await connection.gatt.subscribe(try await characteristic(uuid), to: indications ? .indication : .notification,
                                            handler: handler)
    }

    /// Turns the characteristic's notifications and indications off.
    public func unsubscribe(_ uuid: BluetoothUUID) async throws(StrobeError) {
        try await connection.gatt.unsubscribe(try await characteristic(uuid))
    }

    // MARK: Security and the link

    /// Pairs (and bonds, as the host is configured) and encrypts the link.
    @discardableResult
    public func pair() async throws(StrobeError) -> SMPPairingResult {
        try await connection.pair()
    }

    /// Encrypts the link with the bond's key.
    @discardableResult
    public func encrypt() async throws(StrobeError) -> SMPSecurityLevel {
        try await connection.encrypt()
    }

    /// How the link is secured now: none, unauthenticated, authenticated or Secure Connections.
    public var securityLevel: SMPSecurityLevel { connection.securityLevel }

    /// Asks for new connection parameters and returns those in use after the update.
    @discardableResult
    public func updateParameters(_ parameters: LEConnectionParameters) async throws(StrobeError) -> LEConnectionParametersInUse {
        try await connection.updateParameters(parameters)
    }

    /// Ends the link and returns the reason the controller reported.
    @discardableResult
    public func disconnect() async throws(StrobeError) -> HCIStatus {
        try await connection.disconnect()
    }
}
