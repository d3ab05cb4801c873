import Logging
import StrobeHCI
import StrobeSecurity
import StrobeBase
import Synchronization

/// One LE connection: its parameters, its L2CAP link, and the ATT bearer with the GATT client
/// (and, when this host serves the peer, the GATT server) on it. When the link goes down every
/// pending ATT request fails with the cause (the disconnect's reason, the transport's error, or
/// a link that failed under the bearer).
public final class LEConnection: Sendable, CustomStringConvertible {
    /// The controller's Connection_Handle for the link (0x0000 ... 0x0EFF).
    public let handle: ConnectionHandle
    /// The peer's address from LE Connection Complete: its identity address when the controller
    /// resolved a resolvable private address.
    public let peerAddress: BluetoothAddress
    /// The type of `peerAddress`: public, random, or an identity type when the controller resolved it.
    public let peerAddressType: LEAddressType
    /// Whether this host is the central or the peripheral on the link.
    public let role: LERole
    package let bearer: ATTBearer
    /// The GATT client for the peer's server, on the link's ATT bearer.
    public let gatt: GATTClient
    let link: L2CAPLink
    private let bondedGATT: BondedGATT
    let sender: L2CAPSender
    private let controller: HCIController
    private let clock: any Clock<Duration>
    private let state: Lock<State>
    /// The one timer behind the link's own deadlines (`Deadline`).
    private let timer: DeadlineTimer

    /// What the link waits for with a deadline.
    private enum Deadline: Hashable, Sendable {
        /// LE Connection Update Complete for `updateParameters`.
        case parameterUpdate
        /// LE PHY Update Complete for `setPHY`.
        case phyUpdate
        /// Disconnection Complete after `disconnect`.
        case disconnection
        /// The end of `exchangeMTU(waitingUpTo:)`'s wait (the exchange itself goes on).
        case mtuExchangeWait
    }

    private struct State {
        var parameters: LEConnectionParametersInUse
        var phy = LEConnectionPHY(tx: .le1M, rx: .le1M)
        var dataLength = LEConnectionDataLength(maxTxOctets: 27, maxRxOctets: 27)
        var disconnectReason: HCIStatus?
        /// Why the link ended, as the bearer's waiters saw it.
        var closeReason: ATTBearerCloseReason?
        var waiters: [Waiter<HCIStatus>] = []
        /// `updateParameters` and `setPHY`, waiting for the controller to report them done.
        var procedures = LinkProcedures<ProcedureWaiter>()
        /// `exchangeMTU(waitingUpTo:)` waiting for the exchange to end.
        var mtuExchange: Waiter<Bool>?
        var remoteParameterRequests = 0
        var remoteParameterRequestsAccepted = 0
        var deadlines = DeadlineSet<Deadline>()
    }

    /// Who waits for a procedure of `LinkProcedures`.
    private enum ProcedureWaiter: Equatable, Sendable {
        case parameterUpdate(Waiter<LEConnectionParametersInUse>)
        case phyUpdate(Waiter<LEConnectionPHY>)
    }

    private typealias ProcedureAction = LinkProcedures<ProcedureWaiter>.Action

    /// `nil` when the controller gave a connection handle the host cannot use (0x0F00 and up).
    init?(event: LEConnectionCompleteEvent, controller: HCIController, fragmentLength: Int,
          bearerConfiguration: ATTBearer.Configuration, clock: any Clock<Duration>, security: SecurityManager,
          ownAddress: OwnAddressInUse, parameterPolicy: ConnectionParameterPolicy = .lowLatency) {
        guard let fragmenter = try? L2CAPFragmenter(connectionHandle: event.connectionHandle,
                                                    maximumFragmentLength: max(fragmentLength, 1))
        else { return nil }
        handle = event.connectionHandle
        peerAddress = event.peerAddress
        peerAddressType = event.peerAddressType
        role = event.role
        self.controller = controller
        self.clock = clock
        state = Lock(State(parameters: LEConnectionParametersInUse(
            interval: event.connectionInterval, latency: event.peripheralLatency, supervisionTimeout: event.supervisionTimeout)))
        // The sender fails the link when the controller stops returning buffers; it reports
        // here through a box, since the connection does not exist yet.
        let failed = LinkFailureRelay()
        sender = L2CAPSender(controller: controller, fragmenter: fragmenter) { error in failed.report(error) }
        bearer = ATTBearer(channel: sender, configuration: bearerConfiguration, clock: clock, loop: controller.loop)
        gatt = GATTClient(bearer: bearer)
        // SMP hashes the addresses the link was made with: a resolvable private address when the
        // controller resolved one, else the identity.
        let zero = BluetoothAddress(wire: (0, 0, 0, 0, 0, 0))
        let peerRPA = event.peerResolvablePrivateAddress.flatMap { $0 == zero ? nil : $0 }
        let localRPA = event.localResolvablePrivateAddress.flatMap { $0 == zero ? nil : $0 }
        let linkSecurity = LinkSecurity(
            handle: event.connectionHandle, role: event.role,
            peer: peerRPA ?? event.peerAddress, peerType: peerRPA == nil ? event.peerAddressType : .random,
            local: localRPA ?? ownAddress.address, localType: localRPA == nil ? ownAddress.type : .random,
            identity: ownAddress.identity,
            manager: security, controller: controller, sender: sender, clock: clock)
        link = L2CAPLink(controller: controller, handle: event.connectionHandle, role: event.role, sender: sender, bearer: bearer,
                         security: linkSecurity, clock: clock, parameterPolicy: parameterPolicy)
        bearer.setSecurityEscalation { code in try await linkSecurity.escalate(code) }
        bondedGATT = BondedGATT(security: linkSecurity, gatt: gatt)
        timer = DeadlineTimer(clock: clock, loop: controller.loop)
        timer.onFire { [weak self] now in self?.deadlinesPassed(now) }
        failed.connect { [weak self] error in self?.linkFailed(error) }
    }

    deinit {
        timer.stop()
    }

    /// The GATT server this link serves, when this host is a peripheral (or serves both ways).
    public var server: GATTServerConnection? { bearer.server }

    /// Serves `database` to the peer on this link: the server role joins the client role on the
    /// link's bearer. Returns the per-client server connection.
    @discardableResult
    public func serve(_ database: GATTAttributeDatabase) -> GATTServerConnection {
        let security = link.security
        let server = GATTServerConnection(database: database, bearer: bearer, clock: clock) {
            GATTLinkSecurity(level: security.level, bonded: security.bond != nil)
        }
        bondedGATT.serving(server)
        return server
    }

    /// The peer's GATT database. For a bonded peer it is the one kept with the bond when the
    /// peer's Database Hash is unchanged (or, with no hash, when it has Service Changed to say
    /// otherwise); else it is discovered, and, while the link is encrypted with a bond, kept
    /// with the bond for the next link. Service Changed indications keep it current either way
    /// (`gatt.database`, `gatt.databaseEvents`); a bonded peer's are enabled.
    public func discoverDatabase() async throws(StrobeError) -> GATTDatabase { try await filingErrors { try await bondedGATT.database() } }

    /// Waits until what this link keeps with the bond (the peer's database, its subscriptions),
    /// saved in the background once the link is encrypted, is written.
    public func bondUpdatesWritten() async { await bondedGATT.saved() }

    /// Whether the last `discoverDatabase()` took the database from the bond.
    public var databaseFromCache: Bool { bondedGATT.usedCache }

    /// Names the connection handle, the peer's address and its type.
    public var description: String { "connection \(handle) to \(peerAddress) (\(peerAddressType))" }

    // MARK: Credit-based channels

    /// Opens an LE credit-based channel to the peer's `psm` (0x0001-0x00FF), receiving what
    /// `parameters` say. A central refused for Insufficient Authentication or Encryption secures
    /// the link as the Security Manager's `onInsufficientSecurity` says (as for a GATT request)
    /// and asks once more. Throws `StrobeError.l2cap`: the peer's refusal (`refused` with its
    /// result), a peer without such channels (`commandRejected`), no answer within 30 s
    /// (`timeout`), or the link's end; or `.security` when securing the link failed.
    public func openChannel(psm: UInt16, parameters: L2CAPChannelParameters = .standard) async throws(StrobeError) -> L2CAPChannel {
        try await filingErrors {
            try await securing { try await link.open(psm: psm, parameters: parameters)[0] }
        }
    }

    /// Opens `count` channels (1 to 5) to the peer's `psm` in one Credit Based Connection
    /// Request (enhanced credit-based flow control), each receiving what `parameters` say (MTU
    /// and MPS at least 64). The peer may accept fewer than asked for: those it accepted are
    /// returned, in the order asked; when it accepts none, the call throws. A peer without
    /// enhanced channels (Command Reject) gets one LE Credit Based Connection Request per
    /// channel instead, the same way: those opened until the first refusal are returned. The
    /// peer may raise its MTU on enhanced channels later (`peerMTU`). Throws as `openChannel`
    /// does.
    public func openChannels(psm: UInt16, count: Int, parameters: L2CAPChannelParameters = .standard) async throws(StrobeError)
        -> [L2CAPChannel] {
        try await filingErrors {
            do {
                return try await securing { try await link.open(psm: psm, parameters: parameters, enhanced: count) }
            } catch L2CAPChannelError.commandRejected {
                var channels: [L2CAPChannel] = []
                for _ in 0..<count {
                    do {
                        channels.append(try await openChannel(psm: psm, parameters: parameters))
                    } catch where !channels.isEmpty {
                        break
                    }
                }
                return channels
            }
        }
    }

    /// A central refused for security secures the link and asks once more.
    private func securing<T>(_ open: () async throws -> T) async throws -> T {
        do {
            return try await open()
        } catch L2CAPChannelError.refused(let result) where role == .central
            && (result == .insufficientAuthentication || result == .insufficientEncryption) {
            try await link.security.escalate(result == .insufficientEncryption ? .insufficientEncryption : .insufficientAuthentication)
            return try await open()
        }
    }

    /// The channels the peer opens on `psm`, one at a time or several in an enhanced request,
    /// received as `parameters` say (enhanced requests are refused, Unacceptable Parameters,
    /// when its MTU or MPS is below 64); a peer asking while
    /// the link is below `security` is refused (Insufficient Authentication, or Insufficient
    /// Encryption when a bond could encrypt the link). Listening again on the PSM ends the
    /// earlier sequence; the sequence ends with the link.
    public func listen(psm: UInt16, parameters: L2CAPChannelParameters = .standard, security: SMPSecurityLevel = .none)
        throws(L2CAPChannelError) -> AsyncStream<L2CAPChannel> {
        try link.listen(psm: psm, parameters: parameters, security: security)
    }

    // MARK: Security

    /// What protects the link now: none until encrypted, then the level of the key in use.
    public var securityLevel: SMPSecurityLevel { link.security.level }

    /// The security level now, then each time it changes.
    public func securityLevelChanges() -> AsyncStream<SMPSecurityLevel> { link.security.levelChanges() }

    /// The last pairing on this link that succeeded.
    public var pairingResult: SMPPairingResult? { link.security.lastResult }

    /// The bond with this peer, if the host has one.
    public var bond: Bond? { link.security.bond }

    /// Pairs with the peer (central: Pairing Request; peripheral: Security Request, then the
    /// central's pairing). Stores the bond when both sides bond and the host has a store.
    /// Throws `StrobeError.security`.
    public func pair() async throws(StrobeError) -> SMPPairingResult { try await filingErrors { try await link.security.pair() } }

    /// Waits for a pairing the peer starts (or returns the last one that succeeded on this
    /// link). Throws `StrobeError.security` when it fails or none ends within `timeout`.
    public func pairingCompleted(timeout: Duration = .seconds(30)) async throws(StrobeError) -> SMPPairingResult {
        try await filingErrors {
            try await link.security.pairingCompleted(timeout: timeout)
        }
    }

    /// Central: encrypts the link with the bond's key, without pairing. Throws
    /// `StrobeError.security` (`noBond`; `encryptionFailed` with PIN or Key Missing when the peer
    /// lost the bond).
    @discardableResult
    public func encrypt() async throws(StrobeError) -> SMPSecurityLevel { try await filingErrors { try await link.security.encrypt() } }

    /// Brings the link to at least `level`: encrypts with a bond that gives it, else pairs.
    @discardableResult
    public func secure(to level: SMPSecurityLevel) async throws(StrobeError) -> SMPSecurityLevel { try await filingErrors { try await link.security.secure(to: level) } }

    func encryptionChanged(_ event: EncryptionChangeEvent) { link.security.encryptionChanged(event) }

    func longTermKeyRequested(_ event: LELongTermKeyRequestEvent) { link.security.longTermKeyRequested(event) }

    /// The parameters in use: from LE Connection Complete, then each LE Connection Update Complete.
    public var parameters: LEConnectionParametersInUse { state.withLock { $0.parameters } }

    /// The PHY in each direction: LE 1M until an LE PHY Update Complete says otherwise.
    public var phy: LEConnectionPHY { state.withLock { $0.phy } }

    /// The largest LL payloads in each direction: 27 bytes until an LE Data Length Change.
    public var dataLength: LEConnectionDataLength { state.withLock { $0.dataLength } }

    /// `nil` while connected; the reason once disconnected.
    public var disconnectReason: HCIStatus? { state.withLock { $0.disconnectReason } }

    /// `nil` while connected; once down, why, as every waiter on the link saw it.
    public var closeReason: ATTBearerCloseReason? { state.withLock { $0.closeReason } }

    /// The ATT MTU both sides use (23 until an exchange raises it): a value, notification or
    /// Write Command carries at most `mtu - 3` bytes.
    public var mtu: Int { bearer.mtu }

    /// Whether the link is up: true until Disconnection Complete, or the controller's close, ends it.
    public var isConnected: Bool { disconnectReason == nil }

    /// Connection Parameter Update Requests the peer sent, and how many were accepted.
    public var parameterUpdateRequests: (received: Int, accepted: Int) { link.parameterUpdateRequests }

    /// LE Remote Connection Parameter Requests (the link layer's procedure), and how many were
    /// accepted.
    public var remoteParameterRequests: (received: Int, accepted: Int) {
        state.withLock { ($0.remoteParameterRequests, $0.remoteParameterRequestsAccepted) }
    }

    /// The peer asked for new parameters through the link layer; the central's policy decided.
    func parametersRequested(decision: ConnectionParameterPolicy.Decision) {
        state.withLock {
            $0.remoteParameterRequests += 1
            if case .accept = decision { $0.remoteParameterRequestsAccepted += 1 }
        }
    }

    /// L2CAP counters of this link: PDUs, reassembly errors, refused pairing, unknown channels.
    package var l2capCounters: L2CAPLinkCounters { link.counters }

    /// How long `disconnect` waits for Disconnection Complete before it closes the link itself.
    public static let disconnectionTimeout = Duration.seconds(5)

    /// How long `disconnect` first waits for the controller to have sent what the link queued.
    public static let flushTimeout = Duration.milliseconds(500)

    /// Asks the controller to disconnect and waits for Disconnection Complete; a controller that
    /// never sends it does not hang the caller: after `disconnectionTimeout` the link is closed
    /// here, with Connection Terminated By Local Host. Packets already with the controller go
    /// out first (up to `flushTimeout`): a controller may drop them on Disconnect, and the last
    /// one is often what the peer must hear (Pairing Failed).
    @discardableResult
    public func disconnect(reason: HCIStatus = .remoteUserTerminatedConnection) async throws(StrobeError) -> HCIStatus {
        try await filingErrors {
            if let reason = disconnectReason { return reason }
            _ = await controller.aclPacketsCompleted(on: handle, within: Self.flushTimeout)
            do {
                try await controller.send(HCIDisconnect(connectionHandle: handle, reason: reason))
            } catch HCIError.commandFailed(_, .unknownConnectionIdentifier) {
                // Already gone; Disconnection Complete is on its way or has been handled.
            }
            setDeadline(.disconnection, after: Self.disconnectionTimeout)
            return await disconnected()
        }
    }

    /// Waits until the link is down and returns the reason.
    public func disconnected() async -> HCIStatus {
        let waiter = Waiter<HCIStatus>()
        let reason = state.withLock { s -> HCIStatus? in
            if let reason = s.disconnectReason { return reason }
            s.waiters.append(waiter)
            return nil
        }
        if let reason { return reason }
        // Cancelled: the link is still up as far as anyone knows.
        return (try? await waiter.wait()) ?? .success
    }

    /// Calls `handler` with the reason once the link is down (at once when it is), on the thread
    /// that learns it: it must not block.
    package func whenDisconnected(_ handler: @escaping @Sendable (HCIStatus) -> Void) {
        let waiter = Waiter<HCIStatus>()
        let reason = state.withLock { s -> HCIStatus? in
            if let reason = s.disconnectReason { return reason }
            s.waiters.append(waiter)
            return nil
        }
        if let reason { return handler(reason) }
        waiter.whenResolved { handler((try? $0.get()) ?? .success) }
    }

    // MARK: Driven by the central

    func phyUpdated(_ event: LEPHYUpdateCompleteEvent) {
        let phy = LEConnectionPHY(tx: event.txPHY, rx: event.rxPHY)
        perform(stepProcedures { s in
            if event.status.isSuccess { s.phy = phy }
            return s.procedures.completed(.phyUpdate, status: event.status)
        }, phy: phy)
    }

    /// Asks the controller which PHY the link uses in each direction (LE Read PHY).
    public func readPHY() async throws(StrobeError) -> LEConnectionPHY {
        try await filingErrors {
            let read = try await controller.send(HCILEReadPHY(connectionHandle: handle))
            let phy = LEConnectionPHY(tx: read.txPHY, rx: read.rxPHY)
            state.withLock { $0.phy = phy }
            return phy
        }
    }

    /// Asks for these PHYs (LE Set PHY) and returns the ones in use once the controller reports
    /// the PHY Update procedure done (it does so even when nothing changes), within
    /// `procedureTimeout`. A peer may leave a direction as it was.
    @discardableResult
    public func setPHY(tx: LEPHYs, rx: LEPHYs) async throws(StrobeError) -> LEConnectionPHY {
        try await filingErrors {
            let waiter = Waiter<LEConnectionPHY>()
            return try await awaitProcedure(.phyUpdate, .phyUpdate(waiter), waiter) {
                try await self.controller.send(HCILESetPHY(connectionHandle: self.handle, txPHYs: tx, rxPHYs: rx))
            }
        }
    }

    func dataLengthChanged(_ event: LEDataLengthChangeEvent) {
        state.withLock { $0.dataLength = LEConnectionDataLength(maxTxOctets: event.maxTxOctets, maxRxOctets: event.maxRxOctets) }
    }

    func parametersUpdated(_ event: LEConnectionUpdateCompleteEvent) {
        let inUse = LEConnectionParametersInUse(
            interval: event.connectionInterval, latency: event.peripheralLatency, supervisionTimeout: event.supervisionTimeout)
        perform(stepProcedures { s in
            if event.status.isSuccess { s.parameters = inUse }
            return s.procedures.completed(.parameterUpdate, status: event.status)
        }, parameters: inUse)
    }

    /// How long `updateParameters` and `setPHY` wait for the controller to report the outcome:
    /// the link layer's procedures take a few connection events, and their own limit is 40 s.
    public static let procedureTimeout = Duration.seconds(45)

    /// Asks for new connection parameters and returns the ones in use once the controller reports
    /// them (LE Connection Update Complete). The central's controller updates the link; a
    /// peripheral's asks the central through the link layer's Connection Parameters Request,
    /// which the central's host may refuse (`StrobeError.connection(.updateRefused)`, usually with
    /// Unacceptable Connection Parameters, 0x3B; the link stays as it was). A peripheral whose
    /// controller or central lacks that procedure asks through L2CAP signalling instead
    /// (Connection Parameter Update Request), and the central updates the link if it accepts.
    @discardableResult
    public func updateParameters(_ parameters: LEConnectionParameters) async throws(StrobeError) -> LEConnectionParametersInUse {
        try await filingErrors {
            // What the link already has is not asked for: a controller need not report an update
            // that changes nothing.
            let current = self.parameters
            if LinkProcedures<ProcedureWaiter>.plan(parameters, inUse: current) == .inUse { return current }
            do {
                let waiter = Waiter<LEConnectionParametersInUse>()
                return try await awaitProcedure(.parameterUpdate, .parameterUpdate(waiter), waiter) {
                    try await self.controller.send(HCILEConnectionUpdate(connectionHandle: self.handle, connection: parameters))
                }
            } catch let error where Self.lacksParametersRequestProcedure(error, role: role) {
                let waiter = Waiter<LEConnectionParametersInUse>()
                return try await awaitProcedure(.parameterUpdate, .parameterUpdate(waiter), waiter) {
                    guard try await self.link.requestParameterUpdate(parameters) else {
                        throw ConnectionError.updateRefused(address: self.peerAddress, status: .unacceptableConnectionParameters)
                    }
                }
            }
        }
    }

    /// Whether a peripheral's LE Connection Update failed for want of the link layer's
    /// Connection Parameters Request procedure (`LinkProcedures.fallsBackToSignaling`).
    static func lacksParametersRequestProcedure(_ error: any Error, role: LERole) -> Bool {
        switch error {
        case HCIError.commandFailed(.leConnectionUpdate, let status):
            LinkProcedures<ProcedureWaiter>.fallsBackToSignaling(role: role, commandStatus: status, completeStatus: nil)
        case ConnectionError.updateRefused(_, let status):
            LinkProcedures<ProcedureWaiter>.fallsBackToSignaling(role: role, commandStatus: nil, completeStatus: status)
        default:
            false
        }
    }

    /// One procedure of this host's on the link (a parameter update, a PHY update): `ask` starts
    /// it, and the event that ends it resolves `waiter` (the one `token` names), within
    /// `procedureTimeout`. One at a time of each kind.
    private func awaitProcedure<T: Sendable>(
        _ kind: LinkProcedures<ProcedureWaiter>.Kind, _ token: ProcedureWaiter, _ waiter: Waiter<T>,
        _ ask: @escaping @Sendable () async throws -> Void
    ) async throws -> T {
        if let refused = state.withLock({ $0.procedures.begin(kind, for: token) }) {
            perform([refused])
            return try await waiter.wait()
        }
        let withdraw: @Sendable () -> Void = { self.perform(self.stepProcedures { $0.procedures.withdraw(kind, for: token) }) }
        do {
            try await ask()
        } catch {
            withdraw()
            throw error
        }
        perform(stepProcedures { $0.procedures.commandTaken(kind, for: token) })
        return try await waiter.wait(onCancel: withdraw)
    }

    /// Steps `LinkProcedures` under the state lock, keeping there the deadlines it arms and
    /// disarms; returns the actions, for `perform` after the lock.
    private func stepProcedures(_ step: (inout State) -> [ProcedureAction]) -> [ProcedureAction] {
        state.withLock { s in
            let actions = step(&s)
            for action in actions {
                switch action {
                case .arm(let kind): s.deadlines.set(Self.deadline(kind), at: timer.now + Self.procedureTimeout)
                case .disarm(let kind): s.deadlines.clear(Self.deadline(kind))
                case .finish: continue
                }
                timer.schedule(s.deadlines.next)
            }
            return actions
        }
    }

    private static func deadline(_ kind: LinkProcedures<ProcedureWaiter>.Kind) -> Deadline {
        switch kind {
        case .parameterUpdate: .parameterUpdate
        case .phyUpdate: .phyUpdate
        }
    }

    /// Tells the callers how their procedures ended; a completed one's values are the event's.
    private func perform(_ actions: [ProcedureAction], parameters: LEConnectionParametersInUse? = nil, phy: LEConnectionPHY? = nil) {
        for case .finish(let token, let result) in actions {
            let outcome: Result<Void, any Error>
            switch result {
            case .success(let status) where status.isSuccess: outcome = .success(())
            case .success(let status): outcome = .failure(ConnectionError.updateRefused(address: peerAddress, status: status))
            case .failure(.busy): outcome = .failure(ConnectionError.alreadyUpdating(address: peerAddress))
            case .failure(.timedOut): outcome = .failure(ConnectionError.updateTimeout(address: peerAddress, after: Self.procedureTimeout))
            case .failure(.disconnected): outcome = .failure(HCIError.connectionClosed(handle: handle))
            }
            switch (token, outcome) {
            case (.parameterUpdate(let waiter), .success): _ = waiter.resolve(parameters.map { .success($0) } ?? .failure(HCIError.connectionClosed(handle: handle)))
            case (.phyUpdate(let waiter), .success): _ = waiter.resolve(phy.map { .success($0) } ?? .failure(HCIError.connectionClosed(handle: handle)))
            case (.parameterUpdate(let waiter), .failure(let error)): _ = waiter.fail(error)
            case (.phyUpdate(let waiter), .failure(let error)): _ = waiter.fail(error)
            }
        }
    }

    /// Starts the MTU exchange (once per link) and waits for it up to `limit` on the link's
    /// timer: true when it ended within it, false when the limit passed, the link went down or
    /// the caller was cancelled. A request still unanswered at the limit goes on (a late answer
    /// still sets the MTU) until ATT's own transaction timeout.
    package func exchangeMTU(waitingUpTo limit: Duration) async -> Bool {
        let waiter = Waiter<Bool>()
        let open = state.withLock { s -> Bool in
            guard s.disconnectReason == nil else { return false }
            s.mtuExchange = waiter
            s.deadlines.set(.mtuExchangeWait, at: timer.now + limit)
            timer.schedule(s.deadlines.next)
            return true
        }
        guard open else { return false }
        bearer.startMTUExchange { [weak self] _ in
            self?.state.withLock { s in
                guard s.mtuExchange === waiter else { return }
                s.mtuExchange = nil
                s.deadlines.clear(.mtuExchangeWait)
            }
            waiter.succeed(true)
        }
        return (try? await waiter.wait()) ?? false
    }

    private func setDeadline(_ deadline: Deadline, after duration: Duration) {
        state.withLock { s in
            guard s.disconnectReason == nil else { return }
            s.deadlines.set(deadline, at: timer.now + duration)
            timer.schedule(s.deadlines.next)
        }
    }

    /// The timer fired: a procedure the controller never reported done fails with `timeout`; a
    /// Disconnection Complete that never came is taken as given (the link closes here).
    private func deadlinesPassed(_ now: Duration) {
        var expired: [Deadline] = []
        let (procedures, mtuExchange) = state.withLock { s in
            expired = s.deadlines.expire(now: now)
            timer.schedule(s.deadlines.next)
            var procedures: [ProcedureAction] = []
            if expired.contains(.parameterUpdate) { procedures += s.procedures.timedOut(.parameterUpdate) }
            if expired.contains(.phyUpdate) { procedures += s.procedures.timedOut(.phyUpdate) }
            let mtuExchange = expired.contains(.mtuExchangeWait) ? s.mtuExchange : nil
            if mtuExchange != nil { s.mtuExchange = nil }
            return (procedures, mtuExchange)
        }
        mtuExchange?.succeed(false)
        perform(procedures)
        if expired.contains(.disconnection) { closed(reason: .connectionTerminatedByLocalHost) }
    }

    /// The link is down: the bearer (both roles) fails every waiter with `cause`, the sender
    /// refuses new PDUs.
    func closed(reason: HCIStatus, cause: ATTBearerCloseReason? = nil) {
        let closeReason = cause ?? .disconnected(hciReason: reason.rawValue)
        controller.logger.info("connection closed", metadata: [
            "handle": "\(handle)", "peer": "\(peerAddress)", "reason": "\(reason)", "cause": "\(closeReason)",
        ])
        let waiters = state.withLock { s -> [Waiter<HCIStatus>] in
            guard s.disconnectReason == nil else { return [] }
            s.disconnectReason = reason
            s.closeReason = s.closeReason ?? closeReason
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        let (procedures, mtuExchange) = state.withLock { s in
            defer {
                s.mtuExchange = nil
                s.deadlines.removeAll()
            }
            return (s.procedures.linkClosed(), s.mtuExchange)
        }
        timer.stop()
        mtuExchange?.succeed(false)
        perform(procedures)
        bearer.close(closeReason)
        sender.close()
        link.closed()
        link.security.closed()
        for waiter in waiters { waiter.succeed(reason) }
    }

    /// The controller stopped returning buffers: the link is of no more use. Everyone waiting
    /// hears why, and the controller is asked to drop the connection.
    private func linkFailed(_ error: HCIError) {
        let cause = ATTBearerCloseReason.linkFailed(error)
        controller.logger.error("link failed", metadata: ["handle": "\(handle)", "cause": "\(cause)"])
        state.withLock { s in if s.closeReason == nil { s.closeReason = cause } }
        bearer.close(cause)
        controller.post(HCIDisconnect(connectionHandle: handle, reason: .remoteUserTerminatedConnection)) { [controller, handle] result in
            // A controller that stopped returning buffers may well refuse this too: the link is
            // closed to its users either way, and its supervision timeout ends it on air.
            if case .failure(let error) = result {
                controller.logger.warning("disconnecting a failed link failed", metadata: ["handle": "\(handle)", "error": "\(error)"])
            }
        }
    }
}

/// Carries the sender's one failure report to the connection made after it.
private final class LinkFailureRelay: Sendable {
    private let state = Lock<(target: (@Sendable (HCIError) -> Void)?, pending: (HCIError)?)>((nil, nil))

    func report(_ error: HCIError) {
        let target = state.withLock { s -> (@Sendable (HCIError) -> Void)? in
            if s.target == nil { s.pending = error }
            return s.target
        }
        target?(error)
    }

    func connect(_ target: @escaping @Sendable (HCIError) -> Void) {
        let pending = state.withLock { s -> (HCIError)? in
            s.target = target
            defer { s.pending = nil }
            return s.pending
        }
        if let pending { target(pending) }
    }
}

/// The PHY a connection uses in each direction (Core Vol 4, Part E, 7.7.65.12).
public struct LEConnectionPHY: Sendable, Hashable {
    /// The PHY this side transmits on.
    public var tx: LEPHY
    /// The PHY this side receives on.
    public var rx: LEPHY

    /// Creates a pair of PHYs, transmit then receive.
    public init(tx: LEPHY, rx: LEPHY) {
        self.tx = tx
        self.rx = rx
    }
}

/// The largest link-layer payloads a connection carries in each direction (Vol 4, Part E, 7.7.65.7).
public struct LEConnectionDataLength: Sendable, Hashable {
    /// The largest LL payload this side sends, in octets (27 ... 251).
    public var maxTxOctets: UInt16
    /// The largest LL payload this side receives, in octets (27 ... 251).
    public var maxRxOctets: UInt16
}

/// Connection parameters in use, in the spec's units (interval 1.25 ms, timeout 10 ms).
public struct LEConnectionParametersInUse: Sendable, Hashable {
    /// The connection interval in 1.25 ms units (0x0006 ... 0x0C80: 7.5 ms ... 4 s).
    public var interval: UInt16
    /// The peripheral latency: connection events the peripheral may skip (0 ... 0x01F3).
    public var latency: UInt16
    /// The supervision timeout in 10 ms units (0x000A ... 0x0C80: 100 ms ... 32 s).
    public var supervisionTimeout: UInt16

    package init(interval: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }

    /// `interval` as a duration (units × 1.25 ms).
    public var intervalDuration: Duration { .microseconds(Int64(interval) * 1250) }
    /// `supervisionTimeout` as a duration (units × 10 ms).
    public var supervisionTimeoutDuration: Duration { .milliseconds(Int64(supervisionTimeout) * 10) }
}
