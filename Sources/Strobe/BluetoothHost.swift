import Logging
import StrobeHCI
import StrobeHost

/// What an app starts from: one controller, opened and owned, with everything above it.
///
/// The host runs the controller's init, keeps its clock (the transport's: real time, or the
/// simulated world's), its security manager and bond store, and the central role with its
/// connections. Scans share the controller: any number may run at once, each seeing every
/// advertiser while it scans, and the controller scans while any of them does.
///
/// Call `close()` when done: the host keeps the transport open (its reader running) until then.
///
/// ```swift
/// let host = try await BluetoothHost(transport: TransportSpec.hci(device: 0).open())
/// let peer = try await host.connect(name: "Pen-S1")
/// ```
public final class BluetoothHost: Sendable {
    /// What the host is made with: the central's link settings, security and bonds, deadlines, logging.
    public struct Configuration: Sendable {
        /// What links ask for: the ATT MTU, connection intervals, timeouts, the own address.
        public var central: Central.Configuration
        /// Whether pairing is allowed, bonding, Secure Connections, the minimum key size.
        public var security: SecurityManager.Configuration
        /// Where bonds are kept between runs (a `FileBondStore`); `nil` keeps them in memory,
        /// for this run only.
        public var bondStore: (any BondStore)?
        /// Answers pairing's questions (passkeys, numeric comparison); `nil` pairs Just Works.
        public var pairingDelegate: (any PairingDelegate)?
        /// How long the controller has to answer a command before the host gives up on it.
        public var commandTimeout: Duration
        /// How long ACL data may wait for a controller buffer before its link fails with
        /// `HCIError.noACLCredits`.
        public var aclCreditTimeout: Duration
        /// With a value, the host asks a controller that has been quiet this long whether it is
        /// still there, and closes it when it does not answer (instead of looking idle).
        public var livenessProbeInterval: Duration?
        /// Where the host logs (keys and tokens never appear in it); by default nowhere.
        public var logger: Logger
        /// How the host's loop and the transport's reader thread are run: by default at a
        /// raised priority where the process may ask for one, so that a busy machine's other
        /// threads do not hold packets back.
        public var threadScheduling: ThreadScheduling

        /// The defaults: an ATT MTU of 247, pairing allowed with bonds kept in memory, Just
        /// Works, commands answered within 2 s, controller buffers freed within 10 s, raised
        /// threads where permitted.
        public init(central: Central.Configuration = Central.Configuration(),
                    security: SecurityManager.Configuration = SecurityManager.Configuration(),
                    bondStore: (any BondStore)? = nil, pairingDelegate: (any PairingDelegate)? = nil,
                    commandTimeout: Duration = .seconds(2), aclCreditTimeout: Duration = .seconds(10),
                    livenessProbeInterval: Duration? = nil,
                    logger: Logger = .strobeQuiet, threadScheduling: ThreadScheduling = .raisedWherePermitted) {
            self.central = central
            self.security = security
            self.bondStore = bondStore
            self.pairingDelegate = pairingDelegate
            self.commandTimeout = commandTimeout
            self.aclCreditTimeout = aclCreditTimeout
            self.livenessProbeInterval = livenessProbeInterval
            self.logger = logger
            self.threadScheduling = threadScheduling
        }
    }

    /// The controller, open. Apps rarely need it: the host and its peers do what it offers.
    public let controller: HCIController
    /// What the controller reported when it was opened (address, version, buffers, features).
    public let info: ControllerInfo
    /// The central role: connecting, and the connections that are up.
    public let central: Central
    /// Pairing, encryption and bonds for every link of this host.
    public let security: SecurityManager
    /// The transport's clock, which every wait of the host runs on.
    public let clock: any Clock<Duration>

    /// Opens `transport`'s controller (its init sequence) and takes it over. Throws
    /// `.transport` or `.controller` when it cannot be opened; the transport is closed then.
    public init(transport: any HCITransport, configuration: Configuration = Configuration()) async throws(StrobeError) {
        clock = transport.clock
        controller = HCIController(
            transport: transport, clock: clock,
            configuration: HCIController.Configuration(commandTimeout: configuration.commandTimeout,
                                                       aclCreditTimeout: configuration.aclCreditTimeout,
                                                       livenessProbeInterval: configuration.livenessProbeInterval,
                                                       logger: configuration.logger,
                                                       threadScheduling: configuration.threadScheduling))
        do {
            info = try await controller.open()
        } catch {
            controller.close()
            throw StrobeError(error)
        }
        security = SecurityManager(configuration: configuration.security, store: configuration.bondStore ?? InMemoryBondStore(),
                                   delegate: configuration.pairingDelegate)
        central = Central(controller: controller, clock: clock, configuration: configuration.central, security: security)
    }

    // MARK: Scanning

    /// A scan client of its own: start and stop it as you like; others scanning on this host
    /// are not disturbed by it, nor it by them. One that asks for what the running scan cannot
    /// also serve (legacy commands beside extended ones, another own address type) is refused
    /// with `StrobeError.controller(.scanConflict)`.
    public func scanner() -> LEScanner { central.scanner() }

    /// Scans for `duration` and returns every device seen that `filter` accepts (all by
    /// default), beside any other scan on this host.
    public func scan(for duration: Duration, configuration: LEScanner.Configuration = LEScanner.Configuration(),
                     matching filter: (DiscoveredDevice) -> Bool = { _ in true })
        async throws(StrobeError) -> [DiscoveredDevice] {
        try await scanner().scan(for: duration, configuration: configuration).filter(filter)
    }

    // MARK: Connecting

    /// Scans until a device advertising `name` is seen (within `scanTimeout`), then connects
    /// and exchanges the ATT MTU.
    public func connect(name: String, scanTimeout: Duration = .seconds(5), timeout: Duration? = nil) async throws(StrobeError) -> Peer {
        Peer(try await central.connect(name: name, scanTimeout: scanTimeout, timeout: timeout))
    }

    /// Connects to a device a scan found.
    public func connect(to device: DiscoveredDevice, timeout: Duration? = nil) async throws(StrobeError) -> Peer {
        Peer(try await central.connect(to: device.address, addressType: device.addressType, timeout: timeout))
    }

    /// Connects to an address (no scan first).
    public func connect(to address: BluetoothAddress, type: LEAddressType, timeout: Duration? = nil) async throws(StrobeError) -> Peer {
        Peer(try await central.connect(to: address, addressType: type, timeout: timeout))
    }

    /// Finds a bonded peer under its identity or any private address it resolves to, connects
    /// and encrypts the link with the bond's key. A bonded peer keeps its subscriptions and may
    /// notify as soon as the link is encrypted: `beforeEncrypting` sees the peer first, to route
    /// those values (`subscribe(_:handler:)` is not needed again; set the handlers there).
    public func connect(bonded identity: BluetoothAddress, scanTimeout: Duration = .seconds(5), timeout: Duration? = nil,
                        beforeEncrypting: (Peer) -> Void = { _ in }) async throws(StrobeError) -> Peer {
        Peer(try await central.connect(bonded: identity, scanTimeout: scanTimeout, timeout: timeout) { connection in
            beforeEncrypting(Peer(connection))
        })
    }

    // MARK: The peripheral role

    /// The peripheral role: it serves `database` (with the GAP service, `deviceName` and
    /// `appearance` in it, and the GATT service added after the database's own) to every
    /// central that connects, and advertises when asked (`startAdvertising(name:)`). Make one
    /// per host: it takes the connections peers make to this host.
    public func peripheral(serving database: GATTAttributeDatabase, deviceName: String = "Strobe", appearance: UInt16 = 0)
        -> Peripheral {
        Peripheral(central: central, database: database,
                   genericAccess: GATTGenericAccess(deviceName: deviceName, appearance: appearance))
    }

    /// The connections that are up.
    public var peers: [Peer] { central.connections.map(Peer.init) }

    /// Closes the controller's transport: every connection ends, every wait on it fails.
    public func close() {
        controller.close()
    }
}
