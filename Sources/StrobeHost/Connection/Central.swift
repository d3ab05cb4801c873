import Logging
import StrobeHCI
import StrobeSecurity
import StrobeBase
import Synchronization

/// The central role on one controller: connects to peripherals (by address, or by name after a
/// scan), keeps each connection's state, routes ACL data to its L2CAP link and tears links down
/// when the controller reports a disconnect or closes.
public final class Central: Sendable {
    /// How the central connects: ATT MTU and timeouts, connection parameters, own address, and what it
    /// accepts when a peer asks for other parameters.
    public struct Configuration: Sendable {
        /// The ATT MTU this host offers (23 ... 517); the effective MTU is the smaller of the two.
        public var preferredMTU: Int
        /// ATT transaction timeout, after which the bearer is closed (Core Vol 3, Part F, 3.3.3).
        public var transactionTimeout: Duration
        /// Connection interval range asked for.
        public var connectionInterval: ClosedRange<Duration>
        /// The supervision timeout asked for; 4 s by default, sent in 10 ms units clamped to 100 ms ... 32 s.
        public var supervisionTimeout: Duration
        /// How long an attempt to connect may take before it is cancelled.
        public var connectTimeout: Duration
        /// Ask for 251-byte LL packets and the 2M PHY when the controller's features allow.
        public var requestDataLengthAndPHY: Bool
        /// The address this host connects and advertises from.
        public var ownAddress: OwnAddress
        /// What this host agrees to when a peer asks for new connection parameters.
        public var connectionParameterPolicy: ConnectionParameterPolicy
        /// How long `connect` waits for the MTU exchange before it returns the link at ATT_MTU 23
        /// (the exchange goes on; the spec gives it 30 s).
        public var mtuExchangeWait: Duration

        /// Defaults: ATT MTU 247, 30 s ATT transaction timeout, 7.5 ... 15 ms interval, 4 s supervision
        /// timeout, 5 s connect timeout, data length and LE 2M requested, public own address, the
        /// `.lowLatency` policy and a 3 s wait for the MTU exchange.
        public init(preferredMTU: Int = 247, transactionTimeout: Duration = .seconds(30),
                    connectionInterval: ClosedRange<Duration> = .milliseconds(7.5) ... .milliseconds(15),
                    supervisionTimeout: Duration = .seconds(4), connectTimeout: Duration = .seconds(5),
                    requestDataLengthAndPHY: Bool = true, ownAddress: OwnAddress = .public,
                    connectionParameterPolicy: ConnectionParameterPolicy = .lowLatency, mtuExchangeWait: Duration = .seconds(3)) {
            self.ownAddress = ownAddress
            self.mtuExchangeWait = mtuExchangeWait
            self.connectionParameterPolicy = connectionParameterPolicy
            self.preferredMTU = preferredMTU
            self.transactionTimeout = transactionTimeout
            self.connectionInterval = connectionInterval
            self.supervisionTimeout = supervisionTimeout
            self.connectTimeout = connectTimeout
            self.requestDataLengthAndPHY = requestDataLengthAndPHY
        }
    }

    /// The controller whose connections this central manages.
    public let controller: HCIController
    /// The configuration given at creation; it applies to every connection.
    public let configuration: Configuration
    /// Pairing, bonds and encryption for every link of this central (and its peripheral role).
    public let security: SecurityManager
    /// What the central and its links time their deadlines on.
    package let clock: any Clock<Duration>
    private let state: Lock<State>
    /// One LE Create Connection at a time: the controller allows no more.
    private let initiating = AsyncSerialGate()
    /// The pending attempt's deadline (when it passes, the attempt is cancelled) and the
    /// private address's rotation.
    private let timer: DeadlineTimer

    private struct State {
        var connections: [ConnectionHandle: LEConnection] = [:]
        var incoming: (@Sendable (LEConnection) -> Void)?
        var establishment = Establishment()
        var closed = false
        /// The random address last given to the controller, and whether a private one is due
        /// for rotation.
        var randomAddress: BluetoothAddress?
        var rotationDue = true
        /// When the private address is next due, and how often (on `timer`'s time line).
        var rotation: (next: Duration, every: Duration)?
        /// Without a bond store, the IRK private addresses are made from (for this run only).
        var ephemeralIRK: IdentityResolvingKey?
        /// What the last connect or advertising used, for the links that come of it.
        var ownAddressInUse: OwnAddressInUse?
        /// Called when a private address is due for rotation (the peripheral re-advertises).
        var onRotation: (@Sendable () -> Void)?

        /// The scans `connect(name:)` and `connect(bonded:)` run, each until its limit: the waiter
        /// hears nil when it passes.
        var scanLimits = DeadlineSet<Int>()
        var scanWaits: [Int: Waiter<DiscoveredDevice?>] = [:]
        var nextScanID = 0

        /// What `timer` waits for next.
        var nextDeadline: Duration? {
            [establishment.nextDeadline, rotation?.next, scanLimits.next].compactMap { $0 }.min()
        }
    }

    private typealias Establishment = LEConnectionEstablishment<Waiter<LEConnectionCompleteEvent>>

    /// Takes over the controller's ACL data and watches its events. The controller must be open.
    package init<C: Clock>(controller: HCIController, clock: C, configuration: Configuration = Configuration(),
                          security: SecurityManager = SecurityManager())
    where C.Duration == Duration {
        self.controller = controller
        self.configuration = configuration
        self.security = security
        self.clock = clock
        state = Lock(State())
        timer = DeadlineTimer(clock: clock, loop: controller.loop)
        timer.onFire { [weak self] now in self?.deadlinesPassed(now) }
        // The controller keeps the central as long as it is open: its connections need it to
        // hear their disconnection, whoever else holds it.
        controller.addEventHandler(onClose: { error in self.controllerClosed(error) }) { event, _ in
            self.handle(event)
        }
    }

    /// Takes over the controller's ACL data and watches its events, timing on `ContinuousClock`. The
    /// controller must be open.
    package convenience init(controller: HCIController, configuration: Configuration = Configuration(),
                            security: SecurityManager = SecurityManager()) {
        self.init(controller: controller, clock: ContinuousClock(), configuration: configuration, security: security)
    }

    /// Connections that are up.
    public var connections: [LEConnection] {
        state.withLock { Array($0.connections.values) }.filter(\.isConnected).sorted { $0.handle < $1.handle }
    }

    /// ACL packets for a handle with no connection (dropped and counted by the controller).
    public var aclForUnknownHandles: Int { controller.counters.aclPacketsWithoutHandler }

    // MARK: Scanning

    /// A client of the controller's one scan: it sees every advertiser while it scans, beside
    /// the kits' and the app's other scans, and stopping it stops no one else.
    package func scanner() -> LEScanner { LEScanner(controller: controller) }

    // MARK: Connecting

    /// Connects to a peripheral, exchanges the ATT MTU and returns the connection. Throws
    /// `StrobeError.connection(.timeout)` when the peer did not answer within `timeout` (the
    /// attempt is cancelled with LE Create Connection Cancel), `.connection(.failed)` with the
    /// controller's status, or `.cancelled` when the calling task is cancelled.
    public func connect(to address: BluetoothAddress, addressType: LEAddressType,
                        timeout: Duration? = nil) async throws(StrobeError) -> LEConnection {
        try await filingErrors {
            guard let info = controller.info else { throw HCIError.notOpen }
            let complete = try await initiating.run {
                try await self.createConnection(to: address, addressType: addressType, info: info,
                                                timeout: timeout ?? self.configuration.connectTimeout)
            }
            guard let connection = state.withLock({ $0.connections[complete.connectionHandle] }) else {
                throw ConnectionError.disconnectedDuringSetup(address: address)
            }
            try await setUp(connection, info: info)
            return connection
        }
    }

    /// `connect(to:addressType:timeout:)`, tried up to `attempts` times with `retryInterval`
    /// between attempts that timed out or failed; cancellation is never retried.
    public func connect(to address: BluetoothAddress, addressType: LEAddressType, timeout: Duration? = nil,
                        attempts: Int, retryInterval: Duration = .milliseconds(500)) async throws(StrobeError) -> LEConnection {
        try await filingErrors {
            var attempt = 1
            while true {
                do {
                    return try await connect(to: address, addressType: addressType, timeout: timeout)
                } catch StrobeError.connection where attempt < max(attempts, 1) {
                    attempt += 1
                    try await clock.sleep(for: retryInterval)
                }
            }
        }
    }

    /// Scans until a device advertising `name` is seen (or `scanTimeout` passes), then connects.
    public func connect(name: String, scanTimeout: Duration = .seconds(5), timeout: Duration? = nil) async throws(StrobeError) -> LEConnection {
        try await filingErrors {
            let found = try await firstSeen(within: scanTimeout) { $0.name == name }
            guard let found else { throw ConnectionError.notFound(name: name, scanned: scanTimeout) }
            return try await connect(to: found.address, addressType: found.addressType, timeout: timeout)
        }
    }

    /// Finds a bonded peer by scanning (under its identity address or any resolvable private
    /// address its IRK resolves), connects and encrypts the link with the bond's key. A peer that
    /// changed its private address between the advertisement and the connection attempt is
    /// looked for again until `scanTimeout` has passed. Throws `StrobeError.security(.noBond)`,
    /// `.connection(.notFound)` when it did not show up, or `.security` when encryption failed.
    /// `beforeEncrypting` sees the new link first: a bonded peer keeps its subscriptions with the
    /// bond and may notify as soon as the link is encrypted, so routes for its values go in there.
    public func connect(bonded identity: BluetoothAddress, scanTimeout: Duration = .seconds(5),
                        timeout: Duration? = nil,
                        beforeEncrypting: (LEConnection) -> Void = { _ in }) async throws(StrobeError) -> LEConnection {
        try await filingErrors {
            // A store that cannot be read says so; only a readable one without the bond is noBond.
            guard let bond = try security.store?.bonds().first(where: { $0.peer.address == identity }) else {
                throw SecurityError.noBond(address: identity)
            }
            let elapsed = stopwatch(clock)
            while true {
                let remaining = scanTimeout - elapsed()
                guard remaining > .zero, let found = try await firstSeen(within: remaining, where: { bond.matches($0.address, type: $0.addressType) }) else {
                    throw ConnectionError.notFound(name: "\(identity) (bonded)", scanned: scanTimeout)
                }
                let connection: LEConnection
                do {
                    connection = try await connect(to: found.address, addressType: found.addressType, timeout: timeout)
                } catch StrobeError.connection(.timeout) where elapsed() < scanTimeout {
                    continue  // gone from that address: look again
                }
                beforeEncrypting(connection)
                if connection.role == .central, bond.role == .central {
                    do {
                        try await connection.encrypt()
                    } catch {
                        _ = try? await connection.disconnect()
                        throw error
                    }
                }
                return connection
            }
        }
    }

    /// Time since the call, on `clock`.
    private func stopwatch<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// The first device seen that `matches`, within `limit` on the central's timer (nil when
    /// none was, or the controller closed), on a scan of its own; `matches` runs on the reader's
    /// thread, so it must not block. The scan is stopped also when the caller is cancelled.
    package func firstSeen(within limit: Duration, where matches: @escaping @Sendable (DiscoveredDevice) -> Bool)
        async throws -> DiscoveredDevice? {
        let scanner = scanner()
        let found = Waiter<DiscoveredDevice?>()
        guard let watch = scanner.watch({ device in
            guard let device else { return _ = found.succeed(nil) }
            if matches(device) { _ = found.succeed(device) }
        }) else { return nil }
        defer { scanner.unwatch(watch) }
        try await scanner.start()
        let id = state.withLock { s in
            s.nextScanID += 1
            s.scanLimits.set(s.nextScanID, at: timer.now + limit)
            s.scanWaits[s.nextScanID] = found
            timer.schedule(s.nextDeadline)
            return s.nextScanID
        }
        let outcome: Result<DiscoveredDevice?, any Error>
        do {
            outcome = .success(try await found.wait())
        } catch {
            outcome = .failure(error)
        }
        state.withLock { s in
            s.scanLimits.clear(id)
            s.scanWaits[id] = nil
            timer.schedule(s.nextDeadline)
        }
        // Stopped also when the caller was cancelled: stopping waits for the controller.
        try await scanner.stop()
        return try outcome.get()
    }

    private func createConnection(to address: BluetoothAddress, addressType: LEAddressType, info: ControllerInfo,
                                  timeout: Duration) async throws -> LEConnectionCompleteEvent {
        let parameters = LEConnectionParameters(interval: configuration.connectionInterval,
                                                supervisionTimeout: configuration.supervisionTimeout)
        let own = try await prepareOwnAddress()
        let ownType: LEOwnAddressType = own.type == .public ? .public : .random
        let outcome = Waiter<LEConnectionCompleteEvent>()
        // The machine knows the attempt before the command goes out: LE Connection Complete may
        // come back at once.
        establish({ $0.start(outcome, timeout: timeout) }, sendingCreateConnection: { [controller] sent in
            // Scan 60 ms of every 60 ms while initiating.
            if info.supportsExtendedCreateConnection {
                controller.post(HCILEExtendedCreateConnection(
                    ownAddressType: ownType, peerAddressType: addressType, peerAddress: address,
                    le1M: .init(scanInterval: 0x60, scanWindow: 0x60, connection: parameters))) { sent($0.map { _ in }) }
            } else {
                controller.post(HCILECreateConnection(
                    scanInterval: 0x60, scanWindow: 0x60, peerAddressType: addressType, peerAddress: address,
                    ownAddressType: ownType, connection: parameters)) { sent($0.map { _ in }) }
            }
        })
        do {
            // A cancelled caller still waits for LE Connection Complete, which the cancel brings.
            return try await outcome.waitThroughCancellation {
                self.establish { $0.cancelled(outcome) }
            }
        } catch let failure as Establishment.Failure {
            switch failure {
            case .timedOut(let after): throw ConnectionError.timeout(address: address, after: after)
            case .cancelled: throw CancellationError()
            case .rejected(let status): throw ConnectionError.failed(address: address, status: status)
            case .command(let error), .closed(let error): throw error
            case .noCompletion(let after): throw HCIError.commandTimeout(.leCreateConnectionCancel, after: after)
            }
        }
    }

    /// Feeds the connection attempt's machine, then does what it asks: the commands go out from
    /// here (LE Create Connection through `sendingCreateConnection`, which only a start asks
    /// for), their outcomes go back into the machine, and the attempt's end to its waiter.
    private func establish(_ input: (inout Establishment) -> [Establishment.Action],
                           sendingCreateConnection: (@escaping @Sendable (Result<Void, HCIError>) -> Void) -> Void = { _ in }) {
        let actions = state.withLock { s in
            defer { timer.schedule(s.nextDeadline) }
            return input(&s.establishment)
        }
        for action in actions {
            switch action {
            case .sendCreateConnection:
                sendingCreateConnection { [weak self] result in
                    guard let self else { return }
                    let now = timer.now
                    establish { $0.createConnectionSent(result, now: now) }
                }
            case .sendCreateConnectionCancel:
                controller.post(HCILECreateConnectionCancel()) { [weak self] result in
                    if case .failure(let error) = result {
                        self?.controller.logger.warning("LE Create Connection Cancel failed", metadata: ["error": "\(error)"])
                    }
                    guard let self else { return }
                    let now = timer.now
                    establish { $0.cancelSent(result.map { _ in }, now: now) }
                }
            case .finish(let outcome, let result):
                outcome.resolve(result.mapError { $0 })
            case .disconnect(let handle):
                controller.logger.warning("a connection came up after its attempt ended: disconnecting it", metadata: ["handle": "\(handle)"])
                controller.post(HCIDisconnect(connectionHandle: handle, reason: .remoteUserTerminatedConnection)) { [controller] result in
                    if case .failure(let error) = result {
                        controller.logger.warning("disconnecting it failed", metadata: ["handle": "\(handle)", "error": "\(error)"])
                    }
                }
            }
        }
    }

    /// The timer fired: an attempt past its deadline is cancelled (its LE Connection Complete,
    /// Unknown Connection Identifier, then ends it as a timeout); a private address past its
    /// time is marked due, and the handler (the peripheral's) hears it.
    private func deadlinesPassed(_ now: Duration) {
        let rotated = state.withLock { s -> (@Sendable () -> Void)?? in
            guard let rotation = s.rotation, rotation.next <= now else { return nil }
            s.rotation?.next = now + rotation.every
            s.rotationDue = true
            return .some(s.onRotation)
        }
        let scansOver = state.withLock { s in
            s.scanLimits.expire(now: now).compactMap { s.scanWaits.removeValue(forKey: $0) }
        }
        for scan in scansOver { _ = scan.succeed(nil) }
        establish { $0.deadlinePassed(now: now) }
        if case .some(let handler?) = rotated { handler() }
    }

    /// After LE Connection Complete: MTU, then data length and PHY when the controller has them.
    private func setUp(_ connection: LEConnection, info: ControllerInfo) async throws {
        // The link-layer requests go to the controller while the MTU exchange crosses the air:
        // neither waits for the other. Their outcome does not decide the connection.
        async let linkLayer: Void = requestDataLengthAndPHY(connection.handle, features: info.leFeatures)
        await exchangeMTU(on: connection)
        await linkLayer
        guard connection.isConnected else { throw ConnectionError.disconnectedDuringSetup(address: connection.peerAddress) }
    }

    /// The MTU exchange, waited for up to `mtuExchangeWait`. The link does not depend on it: a
    /// peer that refuses it, or whose ATT server is silent (SMP and L2CAP signalling need no
    /// ATT), leaves the link at ATT_MTU 23. An unanswered request stays with the bearer, which
    /// the spec's 30 s transaction timeout closes, while the link goes on.
    private func exchangeMTU(on connection: LEConnection) async {
        // Waited for on the link's timer; at the limit the request (at connection time nothing
        // is queued before it) runs on: a late answer still sets the MTU.
        let answered = await connection.exchangeMTU(waitingUpTo: configuration.mtuExchangeWait)
        if !answered, connection.isConnected {
            controller.logger.warning("the MTU exchange did not complete: the link stays at ATT_MTU 23", metadata: [
                "handle": "\(connection.handle)", "peer": "\(connection.peerAddress)"])
        }
    }

    private func requestDataLengthAndPHY(_ handle: ConnectionHandle, features: LEFeatures) async {
        guard configuration.requestDataLengthAndPHY else { return }
        // Refused, the link goes on as it is (27-octet PDUs, LE 1M): said, not thrown.
        if features.contains(.dataPacketLengthExtension) {
            do {
                // 251 octets, 2120 µs: the largest LL payload on the 1M PHY (Vol 6, Part B, 4.5.10).
                try await controller.send(HCILESetDataLength(connectionHandle: handle, txOctets: 251, txTime: 2120))
            } catch {
                controller.logger.info("LE Set Data Length failed: the link keeps its PDU length", metadata: ["handle": "\(handle)", "error": "\(error)"])
            }
        }
        if features.contains(.le2MPHY) {
            do {
                try await controller.send(HCILESetPHY(connectionHandle: handle, txPHYs: [.le2M], rxPHYs: [.le2M]))
            } catch {
                controller.logger.info("LE Set PHY failed: the link stays on its PHY", metadata: ["handle": "\(handle)", "error": "\(error)"])
            }
        }
    }

    // MARK: Own address

    private var publicAddressInUse: OwnAddressInUse {
        let address = controller.info?.address ?? BluetoothAddress(wire: (0, 0, 0, 0, 0, 0))
        return OwnAddressInUse(address: address, type: .public, identity: IdentityAddress(address: address, isRandom: false))
    }

    /// Gives the controller the random own address now (LE Set Random Address), before the
    /// first connection or advertisement would: a scan from the random address needs it.
    /// Nothing to do with a public own address.
    public func setUpOwnAddress() async throws(StrobeError) {
        try await filingErrors {
            _ = try await prepareOwnAddress()
        }
    }

    /// The address to connect or advertise from, given to the controller (LE Set Random
    /// Address) when it is a random one not set yet, or a private one due for rotation.
    func prepareOwnAddress() async throws -> OwnAddressInUse {
        let own: OwnAddressInUse
        switch configuration.ownAddress {
        case .public:
            own = publicAddressInUse
        case .staticRandom(let address):
            own = OwnAddressInUse(address: address, type: .random, identity: IdentityAddress(address: address, isRandom: true))
        case .resolvablePrivate(let rotation):
            // The store's IRK, so that bonded peers resolve this address; an ephemeral one only
            // without a store (a store that cannot be read fails the connection instead).
            // The first use makes and stores it, under the store's lock.
            let store = security.store
            let stored = try await security.callingStore { () throws(BondStoreError) in try store?.localIRK() }
            let irk = stored ?? state.withLock { s in
                if s.ephemeralIRK == nil { s.ephemeralIRK = .random() }
                return s.ephemeralIRK!
            }
            let (current, due) = state.withLock { ($0.randomAddress, $0.rotationDue) }
            let address = due || current == nil ? ResolvablePrivateAddress.make(with: irk) : current!
            own = OwnAddressInUse(address: address, type: .random, identity: publicAddressInUse.identity)
            if due { startRotation(every: rotation) }
        }
        if own.type == .random, state.withLock({ $0.randomAddress }) != own.address {
            try await controller.send(HCILESetRandomAddress(address: own.address))
            state.withLock {
                $0.randomAddress = own.address
                $0.rotationDue = false
            }
        }
        state.withLock { $0.ownAddressInUse = own }
        return own
    }

    /// Marks the private address due for a new one every `interval`, on the central's timer
    /// (started once, with the first private address).
    private func startRotation(every interval: Duration) {
        state.withLock { s in
            guard s.rotation == nil, !s.closed else { return }
            s.rotation = (next: timer.now + interval, every: interval)
            timer.schedule(s.nextDeadline)
        }
    }

    /// Called, on the timer's thread (so it must not block), each time a private own address is
    /// due for rotation.
    func setAddressRotationHandler(_ handler: (@Sendable () -> Void)?) {
        state.withLock { $0.onRotation = handler }
    }

    // MARK: Events (reader thread)

    private func handle(_ event: HCIEvent) {
        switch event {
        case .leConnectionComplete(let complete):
            connectionCompleted(complete)
        case .disconnectionComplete(let disconnection) where disconnection.status.isSuccess:
            // The controller already dropped the link's ACL route and its buffers.
            let connection = state.withLock { $0.connections.removeValue(forKey: disconnection.connectionHandle) }
            connection?.closed(reason: disconnection.reason)
        case .leRemoteConnectionParameterRequest(let request):
            remoteConnectionParametersRequested(request)
        case .leConnectionUpdateComplete(let update):
            let connection = state.withLock { $0.connections[update.connectionHandle] }
            connection?.parametersUpdated(update)
        case .lePHYUpdateComplete(let update):
            let connection = state.withLock { $0.connections[update.connectionHandle] }
            connection?.phyUpdated(update)
        case .leDataLengthChange(let change):
            let connection = state.withLock { $0.connections[change.connectionHandle] }
            connection?.dataLengthChanged(change)
        case .encryptionChange(let change):
            let connection = state.withLock { $0.connections[change.connectionHandle] }
            connection?.encryptionChanged(change)
        case .leLongTermKeyRequest(let request):
            let connection = state.withLock { $0.connections[request.connectionHandle] }
            if let connection {
                connection.longTermKeyRequested(request)
            } else {
                controller.post(HCILELongTermKeyRequestNegativeReply(connectionHandle: request.connectionHandle)) { [controller] result in
                    if case .failure(let error) = result {
                        controller.logger.warning("LE Long Term Key Request Negative Reply failed",
                                                  metadata: ["handle": "\(request.connectionHandle)", "error": "\(error)"])
                    }
                }
            }
        default:
            break
        }
    }

    /// The peer asked for new parameters through the link layer: answered at once, as the
    /// policy decides (unanswered, the procedure times out after 40 s and the link with it).
    private func remoteConnectionParametersRequested(_ request: LERemoteConnectionParameterRequestEvent) {
        let decision = configuration.connectionParameterPolicy.decide(request.parameters)
        let connection = state.withLock { $0.connections[request.connectionHandle] }
        connection?.parametersRequested(decision: decision)
        controller.logger.info("LE Remote Connection Parameter Request", metadata: [
            "handle": "\(request.connectionHandle)", "interval": "\(request.intervalMin)...\(request.intervalMax)",
            "latency": "\(request.maxLatency)", "timeout": "\(request.supervisionTimeout)", "decision": "\(decision)",
        ])
        let handle = request.connectionHandle
        let answered: @Sendable (Result<Void, HCIError>) -> Void = { [controller] result in
            if case .failure(let error) = result {
                controller.logger.warning("answering LE Remote Connection Parameter Request failed", metadata: [
                    "handle": "\(handle)", "error": "\(error)"])
            }
        }
        switch decision {
        case .accept(let parameters):
            controller.post(HCILERemoteConnectionParameterRequestReply(connectionHandle: handle, connection: parameters)) {
                answered($0.map { _ in })
            }
        case .reject:
            controller.post(HCILERemoteConnectionParameterRequestNegativeReply(connectionHandle: handle)) { answered($0.map { _ in }) }
        }
    }

    /// Connections where a peer connected to this host (it advertised: the peripheral role) are
    /// kept like the others and handed to this handler, on the reader thread.
    public func setIncomingConnectionHandler(_ handler: (@Sendable (LEConnection) -> Void)?) {
        state.withLock { $0.incoming = handler }
    }

    /// LE Connection Complete, on the reader thread: the link's ACL route is in place before the
    /// next packet is read, so no data of the new link is missed.
    private func connectionCompleted(_ event: LEConnectionCompleteEvent) {
        var connection: LEConnection?
        if event.status.isSuccess {
            connection = LEConnection(
                event: event, controller: controller, fragmentLength: controller.maximumACLDataLength,
                bearerConfiguration: ATTBearer.Configuration(
                    preferredMTU: configuration.preferredMTU, transactionTimeout: configuration.transactionTimeout),
                clock: clock, security: security, ownAddress: state.withLock { $0.ownAddressInUse } ?? publicAddressInUse,
                parameterPolicy: configuration.connectionParameterPolicy)
            if let connection { controller.setACLHandler(connection.link, for: event.connectionHandle) }
        }
        controller.logger.info("LE connection complete", metadata: [
            "status": "\(event.status)", "handle": "\(event.connectionHandle)", "role": "\(event.role)",
            "peer": "\(event.peerAddress)", "interval": "\(event.connectionInterval)",
        ])
        let incoming = state.withLock { s -> (@Sendable (LEConnection) -> Void)? in
            if let connection { s.connections[event.connectionHandle] = connection }
            return event.role == .central ? nil : s.incoming
        }
        if event.role == .central {
            establish { $0.connectionComplete(event) }
        } else if let connection {
            incoming?(connection)
        }
    }

    private func controllerClosed(_ error: HCIError) {
        let connections = state.withLock { s -> [LEConnection] in
            s.closed = true
            s.rotation = nil
            defer { s.connections.removeAll() }
            return Array(s.connections.values)
        }
        establish { $0.closed(error) }
        timer.stop()
        for connection in connections {
            connection.closed(reason: .connectionTerminatedByLocalHost, cause: .transportClosed(error))
        }
    }
}

/// Why a connection could not be made, or new connection parameters or PHYs were not taken.
public enum ConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No connection to `address` within `after`; the attempt was cancelled with LE Create Connection Cancel.
    case timeout(address: BluetoothAddress, after: Duration)
    /// LE Connection Complete for `address` carried the error `status`.
    case failed(address: BluetoothAddress, status: HCIStatus)
    /// No device advertising `name` (or the bonded peer named there) was seen within `scanned`.
    case notFound(name: String, scanned: Duration)
    /// The link to `address` went down before `connect` had set it up (MTU exchange, data length, PHY).
    case disconnectedDuringSetup(address: BluetoothAddress)
    /// The controller reported a connection or PHY update failed: the central refused the request
    /// (usually Unacceptable Connection Parameters, 0x3B) or the procedure failed.
    case updateRefused(address: BluetoothAddress, status: HCIStatus)
    /// No update was reported done within `after`: `LEConnection.procedureTimeout` for the link
    /// layer's procedures, the L2CAP signalling response timeout for a peripheral's request.
    case updateTimeout(address: BluetoothAddress, after: Duration)
    /// Another update of the same kind on this link is under way.
    case alreadyUpdating(address: BluetoothAddress)

    /// A one-line message naming the peer and what went wrong.
    public var description: String {
        switch self {
        case .timeout(let address, let after): "no connection to \(address) within \(after)"
        case .failed(let address, let status): "connecting to \(address) failed: \(status)"
        case .notFound(let name, let scanned): "no device named \"\(name)\" advertised within \(scanned)"
        case .disconnectedDuringSetup(let address): "\(address) disconnected while the connection was being set up"
        case .updateRefused(let address, let status): "the link update with \(address) was refused: \(status)"
        case .updateTimeout(let address, let after): "the link update with \(address) did not complete within \(after)"
        case .alreadyUpdating(let address): "a link update of that kind with \(address) is already under way"
        }
    }
}
