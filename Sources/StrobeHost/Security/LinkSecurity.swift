import Logging
import StrobeHCI
import StrobeSecurity
import StrobeBase
import Synchronization

/// The Security Manager on one link, the owner of its machines and their I/O: which pairing a
/// PDU or an answer is for (`LinkPairing`, around `SMPPairing`), encryption with a bond's key
/// and the link's level (`LinkEncryption`), what a pairing's keys become (`BondSettlement`),
/// and the 30 s SMP timer with its callers' deadlines (`LinkSecurityDeadlines`, on one
/// `DeadlineTimer`). It sends their PDUs and HCI commands, asks the app's delegate (always off
/// the link's threads), and uses the bond store: off the sender's thread, but on the reader's
/// where the next PDU needs the outcome (a peripheral's pairing that ends on the central's last
/// key; a pairing made for a PDU that starts one).
final class LinkSecurity: Sendable {
    let handle: ConnectionHandle
    let role: LERole
    let peer: BluetoothAddress
    let peerType: LEAddressType
    let addresses: SMPPairing.Addresses
    let identity: IdentityAddress
    let manager: SecurityManager
    private let controller: HCIController
    /// The host's loop, for what the link's security runs beside it (a bonded link's saves).
    var loop: HostLoop { controller.loop }
    private let sender: L2CAPSender
    private let timer: DeadlineTimer
    private let state: Lock<State>
    private let levels = AsyncBroadcast<SMPSecurityLevel>()

    /// The SMP timer (Core Vol 3, Part H, 3.4).
    static let smpTimeout = Duration.seconds(30)

    private typealias Encryption = LinkEncryption<Waiter<SMPSecurityLevel>>

    private struct State {
        var pairing: LinkPairing<Waiter<SMPPairingResult>>
        /// Encryption with a bond's key, the link's level, and the bond the peer proved.
        var encryption = Encryption()
        var deadlines = LinkSecurityDeadlines()
        /// The callers' waits that have a deadline, by the id `deadlines` gave them.
        var timedWaits: [Int: TimedWait] = [:]
        /// What a reminder of the Security Request asks for, and the pair() waits it is for.
        var reminderRequirements: SMPAuthenticationRequirements?
        var remindingFor: Set<Int> = []
        /// The questions to the user still open, withdrawn (cancelled) when their pairing ends.
        var questions: [Task<Void, Never>] = []
        var onSecured: (@Sendable (SMPSecurityLevel) -> Void)?
    }

    private enum TimedWait {
        case pairing(Waiter<SMPPairingResult>)
        case encryption(Waiter<SMPSecurityLevel>, after: Duration)
    }

    init(handle: ConnectionHandle, role: LERole, peer: BluetoothAddress, peerType: LEAddressType,
         local: BluetoothAddress, localType: LEAddressType, identity: IdentityAddress,
         manager: SecurityManager, controller: HCIController, sender: L2CAPSender, clock: any Clock<Duration>) {
        self.handle = handle
        self.role = role
        self.peer = peer
        self.peerType = peerType
        self.identity = identity
        self.manager = manager
        self.controller = controller
        self.sender = sender
        addresses = role == .central
            ? SMPPairing.Addresses(initiator: local, initiatorType: localType, responder: peer, responderType: peerType)
            : SMPPairing.Addresses(initiator: peer, initiatorType: peerType, responder: local, responderType: localType)
        state = Lock(State(pairing: LinkPairing(role: role)))
        timer = DeadlineTimer(clock: clock, loop: controller.loop)
        timer.onFire { [weak self] now in self?.deadlinesPassed(now) }
    }

    deinit {
        timer.stop()
    }

    var level: SMPSecurityLevel { state.withLock { $0.encryption.level } }

    /// The level now, then each change (encryption with a bond's key, pairing, encryption off).
    func levelChanges() -> AsyncStream<SMPSecurityLevel> { levels.stream(startingWith: level) }
    var lastResult: SMPPairingResult? { state.withLock { $0.pairing.lastResult } }
    /// The peer's bond; nil when it has none, or when the store cannot be read (logged: a link
    /// then goes on as one without a bond).
    var bond: Bond? {
        do {
            return try manager.store?.bond(for: peer, type: peerType)
        } catch {
            controller.logger.warning("the bond store could not be read", metadata: ["handle": "\(handle)", "error": "\(error)"])
            return nil
        }
    }

    /// The bond the peer proved to be its own on this link (its key encrypts the link, or this
    /// link's pairing stored it); nil on a link not encrypted so, whatever its address says.
    var provenBond: Bond? {
        guard let identity = state.withLock({ $0.encryption.provenBond }) else { return nil }
        do {
            return try manager.store?.bonds().first { $0.peer == identity }
        } catch {
            // What needs it (a bonded client's subscriptions, GATT state saves) goes without.
            controller.logger.warning("the bond store could not be read", metadata: ["handle": "\(handle)", "error": "\(error)"])
            return nil
        }
    }

    /// Called, on the thread that learnt it, each time the link becomes encrypted (with a
    /// bond's key, or by a pairing whose bond, if any, is stored by then).
    func setSecuredHandler(_ handler: (@Sendable (SMPSecurityLevel) -> Void)?) {
        state.withLock { $0.onSecured = handler }
    }

    func logFailedSave(_ reason: any Sendable) {
        controller.logger.warning("GATT state not kept with the bond", metadata: ["handle": "\(handle)", "reason": "\(reason)"])
    }

    /// A bonded client was told its database changed, and did not confirm: it may use a stale
    /// cache until it discovers again.
    func logUnconfirmedServiceChanged(_ error: StrobeError) {
        controller.logger.warning("Service Changed not confirmed", metadata: ["handle": "\(handle)", "error": "\(error)"])
    }

    private func announce(_ level: SMPSecurityLevel) {
        levels.yield(level)
        guard level > .none, let handler = state.withLock({ $0.onSecured }) else { return }
        handler(level)
    }

    /// A pairing machine for this link; `verifyingStore` when it is about to start one.
    private func newPairing(verifyingStore: Bool) throws(BondStoreError) -> SMPPairing {
        SMPPairing(role: role == .central ? .initiator : .responder,
                   configuration: try manager.pairingConfiguration(identity: identity, verifyingStore: verifyingStore),
                   addresses: addresses, keyPair: SMPKeyAgreement(random: manager.random), random: manager.random)
    }

    // MARK: Inputs (reader thread)

    /// An SMP PDU from CID 6.
    func receive(_ pdu: [UInt8]) {
        let allowsPairing = manager.configuration.allowsPairing
        var fresh: Result<SMPPairing, BondStoreError>?
        while true {
            let (step, number) = state.withLock { s in
                (s.pairing.receive(pdu, allowsPairing: allowsPairing, fresh: fresh), s.pairing.number)
            }
            switch step {
            case .makePairing(let verifyingStore):
                // Made outside the lock: its P-256 key, the store's local IRK.
                fresh = Result { () throws(BondStoreError) in try newPairing(verifyingStore: verifyingStore) }
            case .act(let actions):
                return perform(actions, pairing: number)
            }
        }
    }

    /// Carries out the actions `LinkPairing` gave for pairing `number` (never under the lock).
    private func perform(_ actions: [LinkPairing<Waiter<SMPPairingResult>>.Action], pairing number: Int) {
        var pairing: [SMPPairingAction] = []
        for action in actions {
            switch action {
            case .pairing(let action): pairing.append(action)
            case .securityRequested: securityRequested()
            case .storeUnusable(let error):
                controller.logger.error("pairing refused: the bond store cannot be used", metadata: ["handle": "\(handle)", "error": "\(error)"])
            }
        }
        perform(pairing, restartTimer: true, pairing: number)
    }

    /// Encryption Change or Encryption Key Refresh Complete for this link: the pairing's while
    /// one is under way, else the encryption machine's.
    func encryptionChanged(_ event: EncryptionChangeEvent) {
        let (pairingActions, actions, number) = state.withLock { s -> ([SMPPairingAction], [Encryption.Action], Int) in
            if let actions = s.pairing.encryptionChanged(status: event.status) { return (actions, [], s.pairing.number) }
            return ([], s.encryption.encryptionChanged(status: event.status, enabled: event.enabled), s.pairing.number)
        }
        if !event.status.isSuccess {
            controller.logger.warning("encryption failed", metadata: ["handle": "\(handle)", "status": "\(event.status)"])
        }
        perform(actions)
        perform(pairingActions, restartTimer: false, pairing: number)
    }

    /// LE Long Term Key Request (this host is the peripheral): the pairing's key while pairing
    /// encrypts the link, else the bond's when EDIV and Rand name it, else a negative reply.
    func longTermKeyRequested(_ event: LELongTermKeyRequestEvent) {
        let bondKey = self.bond.flatMap { bond in
            bond.role == .peripheral ? bond.longTermKey.map { Encryption.BondKey(key: $0, level: bond.securityLevel, identity: bond.peer) } : nil
        }
        let actions = state.withLock { s in
            s.encryption.longTermKeyRequested(ediv: event.encryptedDiversifier, rand: event.random,
                                              pairingKey: s.pairing.longTermKeyRequested(), bond: bondKey)
        }
        perform(actions)
    }

    /// The pairing's LE Enable Encryption, or a reply to LE Long Term Key Request, failed:
    /// refused by the controller, it is taken as a failed Encryption Change, so that the pairing
    /// ends with the controller's status. Unanswered, the pairing's SMP timer (or the central's
    /// own deadline) ends what waits.
    private func encryptionNotStarted(_ error: HCIError) {
        if case .commandFailed(_, let status) = error {
            return encryptionChanged(EncryptionChangeEvent(status: status, connectionHandle: handle, enabled: false))
        }
        controller.logger.warning("starting encryption failed", metadata: ["handle": "\(handle)", "error": "\(error)"])
    }

    /// Carries out the encryption machine's actions (never under the lock).
    private func perform(_ actions: [Encryption.Action]) {
        for action in actions {
            switch action {
            case .sendEnableEncryption(let key, let waiter):
                // Its failure is that wait's alone, never a pairing's.
                controller.post(HCILEEnableEncryption(
                    connectionHandle: handle, random: key.rand, encryptedDiversifier: key.ediv, longTermKey: key.value)) { [weak self] result in
                    guard case .failure(let error) = result, let self else { return }
                    controller.logger.warning("LE Enable Encryption failed", metadata: ["handle": "\(handle)", "error": "\(error)"])
                    perform(state.withLock { $0.encryption.encryptionCommandFailed(error, for: waiter) })
                }
            case .replyWithKey(let key):
                controller.post(HCILELongTermKeyRequestReply(connectionHandle: handle, longTermKey: key.value)) { [weak self] result in
                    if case .failure(let error) = result { self?.encryptionNotStarted(error) }
                }
            case .replyWithoutKey:
                controller.logger.info("no key for LE Long Term Key Request", metadata: ["handle": "\(handle)"])
                controller.post(HCILELongTermKeyRequestNegativeReply(connectionHandle: handle)) { [controller, handle] result in
                    // Nothing waits on it: the central's encryption fails either way.
                    if case .failure(let error) = result {
                        controller.logger.warning("LE Long Term Key Request Negative Reply failed",
                                                  metadata: ["handle": "\(handle)", "error": "\(error)"])
                    }
                }
            case .finish(let waiter, let result):
                waiter.resolve(result.mapError { [peer] failure -> any Error in
                    switch failure {
                    case .failed(let status): SecurityError.encryptionFailed(address: peer, status: status)
                    case .superseded: CancellationError()
                    case .command(let error): error
                    case .disconnected: SecurityError.pairing(.disconnected)
                    }
                })
            case .announce(let level):
                announce(level)
            }
        }
    }

    /// The link is down: pairing and waits end, and nothing from the pairing is kept.
    func closed() {
        let (waiters, encryption) = state.withLock { s -> ([Waiter<SMPPairingResult>], [Encryption.Action]) in
            s.deadlines.stopAll()
            s.timedWaits = [:]
            for question in s.questions { question.cancel() }
            s.questions = []
            return (s.pairing.linkClosed(), s.encryption.linkClosed())
        }
        timer.stop()
        for waiter in waiters { waiter.fail(SecurityError.pairing(.disconnected)) }
        perform(encryption)
    }

    // MARK: Operations

    /// Pairs: the central sends Pairing Request; the peripheral sends Security Request and
    /// waits for the central to pair. Joins a pairing already under way.
    func pair() async throws -> SMPPairingResult {
        let waiter = Waiter<SMPPairingResult>()
        // Where the store may block: its IRK may wait for its lock and file.
        let wait = try await manager.callingStore { () throws -> Int in try self.beginPairing(waiter) }
        defer { endWait(wait) }
        return try await waiter.wait()
    }

    /// Starts or joins the pairing (`pair()`'s first half): its outcome goes to `waiter`, whose
    /// deadline the returned id names (ended by the caller once the outcome is in).
    private func beginPairing(_ waiter: Waiter<SMPPairingResult>) throws -> Int {
        guard manager.configuration.allowsPairing else { throw SecurityError.pairingNotAllowed }
        // Made before taking the lock: a pairing's P-256 key, and the store's local IRK. A store
        // that cannot keep the bond fails here, before any SMP PDU is sent.
        var fresh: SMPPairing?
        var requirements: SMPAuthenticationRequirements?
        do throws(BondStoreError) {
            if role == .central {
                fresh = state.withLock({ $0.pairing.isPairing }) ? nil : try newPairing(verifyingStore: true)
            } else {
                requirements = try manager.pairingConfiguration(identity: identity, verifyingStore: true).authentication
            }
        } catch {
            throw SecurityError.bondStore(error)
        }
        while true {
            let (step, number) = try state.withLock { s throws(SecurityError) in
                (try s.pairing.begin(waiter, securityRequest: requirements, fresh: fresh), s.pairing.number)
            }
            guard case .makePairing(let verifyingStore) = step else {
                if case .act(let actions) = step { perform(actions, pairing: number) }
                break
            }
            // A pairing ended meanwhile.
            do throws(BondStoreError) {
                fresh = try newPairing(verifyingStore: verifyingStore)
            } catch {
                throw SecurityError.bondStore(error)
            }
        }
        // The SMP timer ends a stalled pairing; this deadline covers a peripheral whose Security
        // Request the central never answers. A peripheral also asks again (`deadlinesPassed`).
        return startWait(.pairing(waiter), for: Self.smpTimeout + .seconds(1), remindingWith: requirements)
    }

    /// Waits for the pairing the peer runs (or returns the one already done), up to `timeout`.
    func pairingCompleted(timeout: Duration) async throws -> SMPPairingResult {
        let waiter = Waiter<SMPPairingResult>()
        let done = try state.withLock { s throws(SecurityError) in try s.pairing.await(waiter) }
        if let done { return done }
        let wait = startWait(.pairing(waiter), for: timeout)
        defer { endWait(wait) }
        return try await waiter.wait()
    }

    /// Central: encrypts the link with the bond's LTK. Throws `noBond`, `encryptionFailed`
    /// (PIN or Key Missing when the peer lost the bond) or `encryptionTimeout`.
    func encrypt() async throws -> SMPSecurityLevel {
        let waiter = Waiter<SMPSecurityLevel>()
        let wait = try beginEncryption(waiter)
        defer { endWait(wait) }
        return try await waiter.wait()
    }

    /// Sends LE Enable Encryption with the bond's key (`encrypt()`'s first half): the outcome
    /// (Encryption Change, the command's failure, or the deadline the returned id names) goes
    /// to `waiter`.
    private func beginEncryption(_ waiter: Waiter<SMPSecurityLevel>) throws -> Int {
        guard let bond, let ltk = bond.longTermKey, bond.role == .central else { throw SecurityError.noBond(address: peer) }
        let key = Encryption.BondKey(key: ltk, level: bond.securityLevel, identity: bond.peer)
        let timeout = manager.configuration.encryptionTimeout
        let wait = startWait(.encryption(waiter, after: timeout), for: timeout)
        perform(state.withLock { $0.encryption.encrypt(waiter, with: key) })
        return wait
    }

    /// The policy's rules for this link, with the app's settings.
    private var policy: LinkSecurityPolicy {
        LinkSecurityPolicy(role: role, allowsPairing: manager.configuration.allowsPairing,
                           onInsufficientSecurity: manager.configuration.onInsufficientSecurity)
    }

    /// What the policy decides on: the link's level, and what its bond's key gives (read from
    /// the store once).
    private var policyLink: LinkSecurityPolicy.Link {
        let bond = bond
        let key = bond.flatMap { $0.role == .central && $0.longTermKey != nil ? $0.securityLevel : nil }
        return LinkSecurityPolicy.Link(level: level, bondKeyLevel: key)
    }

    /// Brings the link to `minimum`: nothing when it is there, else encrypt with the bond, else
    /// pair (when allowed).
    func secure(to minimum: SMPSecurityLevel) async throws -> SMPSecurityLevel {
        // A link already there reads no store.
        let level = level
        if level >= minimum { return level }
        return try await take(policy.secure(to: minimum, policyLink))
    }

    /// A GATT request came back Insufficient Authentication or Insufficient Encryption: secure
    /// the link as the policy says, so that the bearer can send it again. An encrypted link
    /// refused for authentication needs a pairing with MITM protection.
    func escalate(_ code: ATTErrorCode) async throws {
        do {
            _ = try await take(policy.insufficientSecurity(policyLink))
        } catch LinkSecurityPolicy.Failure.notCentral {
            throw ATTError(requestOpcode: .errorResponse, handle: .reserved, code: code)
        }
    }

    /// Takes the policy's step; a failure it names is thrown as `LinkSecurityPolicy.Failure`
    /// only for `notCentral`, which the caller turns into its own error.
    private func take(_ step: LinkSecurityPolicy.Step) async throws -> SMPSecurityLevel {
        let reached: SMPSecurityLevel, required: SMPSecurityLevel
        switch step {
        case .done(let level):
            return level
        case .encrypt(let needed):
            reached = try await encrypt()
            required = needed
        case .pair(let needed):
            reached = try await pair().securityLevel
            required = needed
        case .fail(.insufficientLevel(let level, let needed)):
            throw SecurityError.insufficientLevel(reached: level, required: needed)
        case .fail(.noBond):
            throw SecurityError.noBond(address: peer)
        case .fail(.pairingNotAllowed):
            throw SecurityError.pairingNotAllowed
        case .fail(.notCentral):
            throw LinkSecurityPolicy.Failure.notCentral
        }
        guard reached >= required else { throw SecurityError.insufficientLevel(reached: reached, required: required) }
        return reached
    }

    /// Central: the peripheral asked for security. Encrypt with its bond, else pair.
    private func securityRequested() {
        // Off the reader's thread: the bond is read from its store, a pairing makes its key.
        manager.callingStore(on: controller.loop) { self.answerSecurityRequest(self.policy.securityRequested(self.policyLink)) }
    }

    private func answerSecurityRequest(_ answer: LinkSecurityPolicy.SecurityRequestAnswer) {
        switch answer {
        case .encrypt:
            let encrypted = Waiter<SMPSecurityLevel>()
            // The bond may have gone since the policy read it: then as if its key had failed.
            guard let wait = try? beginEncryption(encrypted) else {
                return answerSecurityRequest(policy.encryptionForRequestFailed())
            }
            encrypted.whenResolved { [weak self] outcome in
                guard let self else { return }
                endWait(wait)
                if case .failure = outcome { answerSecurityRequest(policy.encryptionForRequestFailed()) }
            }
        case .pair:
            pairOnRequest()
        case .refuse:
            sender.post(SMPPDU.pairingFailed(.pairingNotSupported).encoded, on: .smp)
        }
    }

    /// Central: pairs for the peripheral's Security Request. Nobody waits on it: the link's
    /// level, its handlers and the log tell how it ended.
    private func pairOnRequest() {
        let paired = Waiter<SMPPairingResult>()
        let wait: Int
        do {
            wait = try beginPairing(paired)
        } catch {
            controller.logger.warning("Security Request not answered with a pairing", metadata: ["handle": "\(handle)", "error": "\(error)"])
            // A store that cannot keep the bond: the peer waits for an answer, tell it rather than
            // leave it to its SMP timeout. (After an SMP timeout no PDU may be sent at all.)
            if case SecurityError.bondStore = error { sender.post(SMPPDU.pairingFailed(.unspecifiedReason).encoded, on: .smp) }
            return
        }
        paired.whenResolved { [weak self] _ in self?.endWait(wait) }
    }

    // MARK: Actions

    /// Carries out pairing `number`'s actions: a question to the user is for that pairing only.
    private func perform(_ actions: [SMPPairingAction], restartTimer: Bool, pairing number: Int) {
        guard !actions.isEmpty else { return }
        if restartTimer { self.restartTimer() }
        // The last PDU of a pairing (our keys) is with the controller before the pairing is
        // reported done: a caller that disconnects at once must not cut it off (`disconnect`
        // then waits for the controller to have sent it).
        var lastSent: Waiter<Void>?
        for action in actions {
            switch action {
            case .send(let pdu):
                let sent = Waiter<Void>()
                sender.post(pdu.encoded, on: .smp) { sent.resolve($0) }
                lastSent = sent
            case .acceptPairing:
                ask(for: number) { delegate, peer in await delegate.acceptPairing(with: peer) } answer: { pairing, yes in pairing.accept(yes ?? false) }
            case .displayPasskey(let passkey):
                if manager.delegate != nil {
                    consult { delegate, peer in await delegate.displayPasskey(passkey, to: peer) } then: { _ in }
                }
            case .enterPasskey:
                ask(for: number) { delegate, peer in await delegate.enterPasskey(for: peer) } answer: { pairing, value in pairing.passkeyEntered(value ?? nil) }
            case .confirmNumber(let value):
                ask(for: number) { delegate, peer in await delegate.confirmNumber(value, with: peer) } answer: { pairing, yes in pairing.numberConfirmed(yes ?? false) }
            case .confirmJustWorks:
                ask(for: number) { delegate, peer in await delegate.confirmJustWorks(with: peer) } answer: { pairing, yes in pairing.justWorksConfirmed(yes ?? false) }
            case .startEncryption(let key):
                controller.post(HCILEEnableEncryption(
                    connectionHandle: handle, random: key.rand, encryptedDiversifier: key.ediv, longTermKey: key.value)) { [weak self] result in
                    if case .failure(let error) = result { self?.encryptionNotStarted(error) }
                }
            case .completed(let result):
                let waiters = takeWaiters()
                once(lastSent) { self.completed(result, waiters: waiters) }
            case .failed(let error):
                // Likewise a Pairing Failed: a caller that disconnects on the error must not
                // cut it off.
                let waiters = takeWaiters(ending: error)
                once(lastSent) { self.failed(error, waiters: waiters) }
            }
        }
    }

    /// Runs `body` once `sent` (a PDU handed to the sender) is with the controller; at once when
    /// there is none (a peripheral's pairing ends on the central's last key: its level is the
    /// link's before the reader takes the next PDU, which may need it).
    private func once(_ sent: Waiter<Void>?, _ body: @escaping @Sendable () -> Void) {
        guard let sent else { return body() }
        // Later, not inside the sender's completion: storing a bond may take the store's lock and
        // flush a file (on a thread of its own when the store blocks), and the sender goes on.
        sent.whenResolved { _ in self.manager.callingStore(on: self.controller.loop, body) }
    }

    /// Asks the delegate (none: the answer is no) and feeds the answer to pairing `number`.
    private func ask<Answer: Sendable>(
        for number: Int,
        _ question: @escaping @Sendable (any PairingDelegate, BluetoothAddress) async -> Answer?,
        answer: @escaping @Sendable (inout SMPPairing, Answer?) -> [SMPPairingAction]
    ) {
        state.withLock { s in
            s.questions.append(consult(question) { value in
                let actions = self.state.withLock { s -> [SMPPairingAction] in
                    guard !Task.isCancelled else { return [] }
                    return s.pairing.answer(for: number) { answer(&$0, value) }
                }
                self.perform(actions, restartTimer: true, pairing: number)
            })
        }
    }

    /// Puts a question to the app's delegate (none: the answer is nil) and hands the answer to
    /// `then`: the way the link waits on the app, off the thread that asked. Cancelling the task
    /// withdraws the question.
    @discardableResult
    private func consult<Answer: Sendable>(
        _ question: @escaping @Sendable (any PairingDelegate, BluetoothAddress) async -> Answer?,
        then: @escaping @Sendable (Answer?) -> Void
    ) -> Task<Void, Never> {
        // No delegate: the answer is no at once, from a task on the host's loop, not the app's
        // pool (still a task, so that withdrawing the question cancels it).
        guard let delegate = manager.delegate else {
            return Task(executorPreference: controller.loop.executor) { then(nil) }
        }
        return offThread { [peer] in then(await question(delegate, peer)) }
    }

    /// Runs `work` on the cooperative pool: for what waits long without blocking (the app's
    /// delegate) away from the reader's, a timer's or the sender's thread. What calls the bond
    /// store goes through `manager.callingStore` instead.
    @discardableResult
    private func offThread(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task(executorPreference: controller.loop.offLoopExecutor) { await work() }
    }

    /// The pairing ended: its waiters are taken now, so that a pairing started meanwhile keeps
    /// its own; the SMP timer stops, and after a timeout no more SMP is taken on the link.
    private func takeWaiters(ending error: SMPPairingError? = nil) -> [Waiter<SMPPairingResult>] {
        state.withLock { s in
            s.deadlines.stopSMPTimer()
            timer.schedule(s.deadlines.next)
            for question in s.questions { question.cancel() }
            s.questions = []
            return s.pairing.ended(error)
        }
    }

    /// Pairing succeeded: what becomes of its keys is `BondSettlement`'s to say.
    private func completed(_ result: SMPPairingResult, waiters: [Waiter<SMPPairingResult>]) {
        // The pairing's keys encrypt the link now: it is proven to be a bond's only once stored.
        state.withLock { $0.encryption.pairingEncrypted() }
        let settlement = BondSettlement(result, peer: peer, peerType: peerType, role: role)
        let store = manager.store
        settle(settlement, settlement.start(storing: store != nil), in: store, waiters: waiters)
    }

    /// Carries out the settlement's steps: the store's I/O here, the delegate's word off the
    /// thread (its answer goes on from there).
    /// `store` is nil only when the settlement was started without one, and then asks for no
    /// lookup or save.
    private func settle(_ settlement: BondSettlement, _ actions: [BondSettlement.Action], in store: (any BondStore)?,
                        waiters: [Waiter<SMPPairingResult>]) {
        var settlement = settlement
        var actions = actions
        while !actions.isEmpty {
            var next: [BondSettlement.Action] = []
            for action in actions {
                switch action {
                case .identityClaimIgnored(let reason):
                    controller.logger.warning("peer identity not taken", metadata: ["handle": "\(handle)", "reason": "\(reason)"])
                case .lookUp(let address):
                    next += settlement.found(Result { () throws(BondStoreError) in
                        try store?.bonds().first { $0.peer.address == address }
                    })
                case .askToReplace(let existing, let bond, let reason):
                    let asked = settlement
                    consult { delegate, _ in await delegate.replaceBond(existing, with: bond, reason: reason) } then: { yes in
                        self.manager.callingStore(on: self.controller.loop) { self.settle(asked, asked.answered(yes), in: store, waiters: waiters) }
                    }
                case .save(let bond, let existing, let connectionAddress):
                    next += settlement.saved(Result { () throws(BondStoreError) in
                        guard let store, try store.save(bond, replacing: existing) else { return false }
                        if let connectionAddress { try store.removeBond(for: connectionAddress) }
                        return true
                    })
                case .stored(let identity):
                    state.withLock { $0.encryption.bondStored(identity) }
                case .finish(let outcome):
                    finish(result: settlement.result, waiters, outcome: outcome)
                case .refuse(let error):
                    refuse(error, waiters: waiters)
                }
            }
            actions = next
        }
    }

    private func finish(result: SMPPairingResult, _ waiters: [Waiter<SMPPairingResult>], outcome: Result<SMPPairingResult, SecurityError>) {
        state.withLock { s in
            s.encryption.paired(level: result.securityLevel)
            s.pairing.settled(result)
        }
        announce(result.securityLevel)
        controller.logger.info("paired", metadata: ["handle": "\(handle)", "result": "\(result)"])
        for waiter in waiters { waiter.resolve(outcome.mapError { $0 }) }
    }

    /// A pairing whose keys are not kept: its level and result are not taken, and the link
    /// encrypted with them is ended (Authentication Failure).
    private func refuse(_ error: SecurityError, waiters: [Waiter<SMPPairingResult>]) {
        controller.logger.warning("pairing refused", metadata: ["handle": "\(handle)", "error": "\(error)"])
        for waiter in waiters { waiter.fail(error) }
        controller.post(HCIDisconnect(connectionHandle: handle, reason: .authenticationFailure)) { [controller, handle] result in
            if case .failure(let error) = result {
                controller.logger.warning("disconnecting a refused pairing failed", metadata: ["handle": "\(handle)", "error": "\(error)"])
            }
        }
    }

    private func failed(_ error: SMPPairingError, waiters: [Waiter<SMPPairingResult>]) {
        controller.logger.warning("pairing failed", metadata: ["handle": "\(handle)", "error": "\(error)"])
        for waiter in waiters { waiter.fail(SecurityError.pairing(error)) }
    }

    // MARK: Deadlines

    /// Every SMP command sent or received restarts the timer while pairing is under way.
    private func restartTimer() {
        state.withLock { s in
            if s.pairing.timerRuns {
                s.deadlines.startSMPTimer(now: timer.now, timeout: Self.smpTimeout)
            } else {
                s.deadlines.stopSMPTimer()
            }
            timer.schedule(s.deadlines.next)
        }
    }

    /// Gives a caller's wait its deadline; a peripheral's first Security Request (`requirements`)
    /// also starts the reminders.
    private func startWait(_ wait: TimedWait, for duration: Duration,
                           remindingWith requirements: SMPAuthenticationRequirements? = nil) -> Int {
        state.withLock { s in
            let now = timer.now
            let id = s.deadlines.startWait(until: now + duration)
            s.timedWaits[id] = wait
            if let requirements {
                s.reminderRequirements = requirements
                s.remindingFor.insert(id)
                s.deadlines.startReminders(now: now)
            }
            timer.schedule(s.deadlines.next)
            return id
        }
    }

    /// A caller's wait is over (answered, timed out or cancelled); the reminders stop with the
    /// last peripheral's pair() that asked for them.
    private func endWait(_ id: Int) {
        state.withLock { s in
            s.deadlines.endWait(id)
            s.timedWaits[id] = nil
            if s.remindingFor.remove(id) != nil, s.remindingFor.isEmpty { s.deadlines.stopReminders() }
            timer.schedule(s.deadlines.next)
        }
    }

    /// The timer fired: the SMP timeout goes to the pairing, a wait past its deadline fails,
    /// and a peripheral asks again while the central has sent no SMP PDU since its Security
    /// Request, nor started encryption (a central may miss one that came before its host
    /// listened, and the Core Specification leaves answering it to the central).
    private func deadlinesPassed(_ now: Duration) {
        var expiredWaits: [TimedWait] = []
        var reminder: SMPAuthenticationRequirements?
        let (actions, number) = state.withLock { s -> ([SMPPairingAction], Int) in
            var actions: [SMPPairingAction] = []
            for expiry in s.deadlines.expire(now: now) {
                switch expiry {
                case .smpTimer:
                    actions += s.pairing.smpTimerExpired()
                case .wait(let id):
                    if let wait = s.timedWaits.removeValue(forKey: id) { expiredWaits.append(wait) }
                case .securityRequestReminder:
                    if s.pairing.remindsCentral(encrypted: s.encryption.level != .none) {
                        reminder = s.reminderRequirements
                    } else {
                        s.deadlines.stopReminders()
                    }
                }
            }
            timer.schedule(s.deadlines.next)
            return (actions, s.pairing.number)
        }
        for wait in expiredWaits {
            switch wait {
            case .pairing(let waiter): waiter.fail(SecurityError.pairing(.timeout))
            case .encryption(let waiter, let after): waiter.fail(SecurityError.encryptionTimeout(address: peer, after: after))
            }
        }
        if let reminder {
            controller.logger.debug("the central has not answered the Security Request: asking again", metadata: ["handle": "\(handle)"])
            sender.post(SMPPDU.securityRequest(reminder).encoded, on: .smp)
        }
        perform(actions, restartTimer: false, pairing: number)
    }
}
