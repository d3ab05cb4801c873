import StrobeHCI
import StrobeBase
import Synchronization

/// The ATT bearer of one LE link (Core Specification Vol 3, Part F, 3.3): the one owner of the
/// link's ATT state. It holds the ATT_MTU (whichever side exchanged it), routes every PDU that
/// arrives, and sends through the link's channel. The GATT client and the GATT server are roles
/// on it: the client's requests run as sequential transactions here (`ATTTransactions`), its
/// notifications and indications go to handlers by attribute handle; requests, commands and
/// confirmations from the peer go to the attached server role (or are answered Request Not
/// Supported when there is none).
///
/// Control state sits behind one `Mutex`; the notification path takes no lock (its handlers are
/// the reader's own copy, its counts atomic). Every wait ends once: by its response, its
/// deadline (from when it was queued, one timer for the bearer), cancellation or the close.
package final class ATTBearer: Sendable {
    package struct Configuration: Sendable {
        /// Our receive MTU, announced in Exchange MTU (clamped to 23...517 and the channel's limit).
        package var preferredMTU: Int
        /// How long a request may take from when it is queued to its response (30 s in the spec,
        /// counted there from the send). A request on the wire that times out closes the bearer.
        package var transactionTimeout: Duration

        package init(preferredMTU: Int = 517, transactionTimeout: Duration = .seconds(30)) {
            self.preferredMTU = preferredMTU
            self.transactionTimeout = transactionTimeout
        }
    }

    package let configuration: Configuration
    /// The receive MTU we announce: the configured one, within 23...517 and the channel's limit.
    package let localMTU: Int
    let channel: any ATTChannel
    private let state: Lock<State>
    private let timer: DeadlineTimer
    /// The host's loop, when the bearer is a link's: the GATT server on it keeps its deadlines there too.
    package let loop: HostLoop?
    /// The handlers of pushed values, as the receive path uses them.
    private let valueRoutes = ReaderHandoff<ValueRoutes>(ValueRoutes(handlers: [:], defaultHandler: nil))
    private let valueCounts = ValueCounts()
    private let securityEscalation = Lock<SecurityEscalation?>(nil)

    package init(
        channel: any ATTChannel,
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock(),
        loop: HostLoop? = nil
    ) {
        self.channel = channel
        self.configuration = configuration
        localMTU = max(ATTMTU.minimum, min(configuration.preferredMTU, ATTMTU.maximum, channel.maximumPayload))
        state = Lock(State(transactions: ATTTransactions(timeout: configuration.transactionTimeout),
                           mtuExchange: ATTMTUExchange(localMTU: localMTU)))
        timer = DeadlineTimer(clock: clock, loop: loop)
        self.loop = loop
        timer.onFire { [weak self] now in self?.deadlinePassed(now) }
    }

    deinit {
        timer.stop()
    }

    // MARK: State

    /// A request's owner: a caller waiting for the response, or an armed write.
    enum Requester: Equatable, Sendable {
        case caller(Waiter<[UInt8]>)
        case armed(ATTArmedWrite)

        static func == (lhs: Requester, rhs: Requester) -> Bool {
            switch (lhs, rhs) {
            case (.caller(let a), .caller(let b)): a === b
            case (.armed(let a), .armed(let b)): a === b
            default: false
            }
        }
    }

    /// The handlers of pushed values as the receive path uses them: an immutable snapshot,
    /// searched linearly. Each handler sits in a box the snapshot owns and the routes borrow, so
    /// that a value's call takes no reference count; the default handler sits in the snapshot
    /// itself, one object fewer to reach on every value when it is the only one (a ring).
    private final class ValueRoutes: @unchecked Sendable {
        final class Box: Sendable {
            let handler: any ATTValueHandler
            init(_ handler: any ATTValueHandler) { self.handler = handler }
        }

        struct Route {
            let handle: AttributeHandle
            let box: Unmanaged<Box>
        }

        private let boxes: [Box]
        private let routes: UnsafeMutableBufferPointer<Route>
        private let fallback: (any ATTValueHandler)?

        init(handlers: [AttributeHandle: any ATTValueHandler], defaultHandler: (any ATTValueHandler)?) {
            let entries = handlers.map { ($0.key, Box($0.value)) }
            boxes = entries.map(\.1)
            routes = .allocate(capacity: entries.count)
            _ = routes.initialize(from: entries.map { Route(handle: $0.0, box: .passUnretained($0.1)) })
            fallback = defaultHandler
        }

        deinit {
            routes.deinitialize()
            routes.deallocate()
        }

        /// Ends the batch on every handler.
        func finishBatch() {
            for route in routes {
                route.box._withUnsafeGuaranteedRef { $0.handler.attributeValuesDidFinishBatch() }
            }
            fallback?.attributeValuesDidFinishBatch()
        }

        /// Hands the value to its handler (or the default one); false when there is neither.
        @inline(__always)
        func deliver(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) -> Bool {
            for index in routes.indices where routes[index].handle == handle {
                routes[index].box._withUnsafeGuaranteedRef { $0.handler.attributeValueReceived(value, handle: handle, kind: kind, at: time) }
                return true
            }
            // Called in place (no `if let` copy), so that it takes no reference count either.
            return fallback?.attributeValueReceived(value, handle: handle, kind: kind, at: time) != nil
        }
    }

    /// The statistics the receive path keeps, counted without a lock.
    private struct ValueCounts: ~Copyable, Sendable {
        let notifications = Atomic<UInt64>(0)
        let indications = Atomic<UInt64>(0)
        let unrouted = Atomic<UInt64>(0)
    }

    private struct State {
        var transactions: ATTTransactions<Requester>
        /// The ATT_MTU, and whether our exchange went.
        var mtuExchange: ATTMTUExchange
        var handlers: [AttributeHandle: any ATTValueHandler] = [:]
        var defaultHandler: (any ATTValueHandler)?
        var server: GATTServerConnection?
        var statistics = ATTBearerStatistics()

        var closeReason: ATTBearerCloseReason? { transactions.closedWith }

        mutating func record(_ violation: ATTProtocolViolation) {
            statistics.protocolViolations &+= 1
            statistics.lastProtocolViolation = violation
        }
    }

    // MARK: Public surface

    /// The ATT_MTU in effect: 23 until an exchange (either side's) completes.
    package var mtu: Int { state.withLock { $0.mtuExchange.mtu } }

    package var isClosed: Bool { state.withLock { $0.closeReason != nil } }
    package var closeReason: ATTBearerCloseReason? { state.withLock { $0.closeReason } }
    package var statistics: ATTBearerStatistics {
        var statistics = state.withLock { s in
            var statistics = s.statistics
            statistics.abandonedResponses = s.transactions.abandonedResponses
            return statistics
        }
        statistics.notificationsReceived = valueCounts.notifications.load(ordering: .relaxed)
        statistics.indicationsReceived = valueCounts.indications.load(ordering: .relaxed)
        statistics.unroutedValues = valueCounts.unrouted.load(ordering: .relaxed)
        return statistics
    }

    /// Requests waiting for their turn behind the outstanding one.
    package var queuedRequestCount: Int { state.withLock { $0.transactions.queue.count } }
    /// The request on the wire or about to be, abandoned or not.
    package var outstandingRequest: ATTOpcode? { state.withLock { $0.transactions.outstanding?.opcode } }

    /// The server role on this link, when this host serves the peer.
    package var server: GATTServerConnection? { state.withLock { $0.server } }

    /// Routes notifications and indications of `handle` to `handler` (nil removes the route).
    package func setValueHandler(_ handler: (any ATTValueHandler)?, forHandle handle: AttributeHandle) {
        let previous = state.withLock { s in
            defer { publishValueRoutes(s) }
            if let handler { return s.handlers.updateValue(handler, forKey: handle) }
            return s.handlers.removeValue(forKey: handle)
        }
        _ = previous  // released outside the lock
    }

    /// Receives values of handles that have no handler of their own.
    package func setDefaultValueHandler(_ handler: (any ATTValueHandler)?) {
        let previous = state.withLock { s in
            defer {
                s.defaultHandler = handler
                publishValueRoutes(s)
            }
            return s.defaultHandler
        }
        _ = previous
    }

    /// With the lock held, so that tables are handed over in the order they change.
    private func publishValueRoutes(_ s: borrowing State) {
        valueRoutes.offer(s.closeReason == nil ? ValueRoutes(handlers: s.handlers, defaultHandler: s.defaultHandler) : nil)
    }

    /// Sends one request and waits for its response. Requests are sent one at a time, in the
    /// order they were made. Throws `ATTError` for an Error Response, `ATTBearerError` (a
    /// timeout, the bearer closed, a PDU over the MTU, a malformed response), `CancellationError`
    /// (a request already on the wire still runs to its response or timeout), or the channel's
    /// error.
    ///
    /// An Error Response of Insufficient Authentication or Insufficient Encryption goes to the
    /// link's security escalation (encrypt with the bond, or pair) and the request is sent again,
    /// once; when the link cannot be secured, that error is thrown.
    package func request<Request: ATTRequestPDU>(_ request: Request) async throws -> Request.Response {
        do {
            return try await requestOnce(request)
        } catch let error as ATTError where error.code == .insufficientAuthentication || error.code == .insufficientEncryption {
            guard let escalate = securityEscalation.withLock({ $0 }) else { throw error }
            try await escalate(error.code)
            return try await requestOnce(request)
        }
    }

    /// What the link does when a request fails for want of security (set by the connection).
    package typealias SecurityEscalation = @Sendable (ATTErrorCode) async throws -> Void

    package func setSecurityEscalation(_ escalation: SecurityEscalation?) {
        securityEscalation.withLock { $0 = escalation }
    }

    /// Sends one request behind those queued, without waiting and without security escalation:
    /// `then` gets the response or the failure, on the thread that learns it (so it must not
    /// block). For a caller that cannot wait (its task is cancelled, and a cancelled task cannot
    /// send).
    package func post<Request: ATTRequestPDU>(_ request: Request,
                                             then: @escaping @Sendable (Result<Request.Response, any Error>) -> Void) {
        let waiter: Waiter<[UInt8]>
        do {
            waiter = try enqueue(request.encoded(), opcode: Request.opcode)
        } catch {
            return then(.failure(error))
        }
        waiter.whenResolved { [weak self] response in
            guard let self else { return then(.failure(ATTBearerCloseReason.local.error)) }
            then(Result { try self.decode(Request.self, response.get()) })
        }
    }

    private func requestOnce<Request: ATTRequestPDU>(_ request: Request) async throws -> Request.Response {
        let waiter = try enqueue(request.encoded(), opcode: Request.opcode)
        let response = try await waiter.wait { [weak self] in
            self?.state.withLock { $0.transactions.cancel(.caller(waiter)) }
        }
        return try decode(Request.self, response)
    }

    private func decode<Request: ATTRequestPDU>(_: Request.Type, _ response: [UInt8]) throws(ATTBearerError) -> Request.Response {
        do throws(ATTDecodingError) {
            return try Request.Response(pdu: response)
        } catch {
            state.withLock { $0.record(.malformedPDU(error)) }
            throw ATTBearerError.malformedResponse(error)
        }
    }

    /// Queues a request's PDU in the transaction machine; the waiter gets the response.
    private func enqueue(_ pdu: [UInt8], opcode: ATTOpcode) throws(ATTBearerError) -> Waiter<[UInt8]> {
        let waiter = Waiter<[UInt8]>()
        let now = timer.now
        let actions = try state.withLock { s throws(ATTBearerError) -> [ATTTransactions<Requester>.Action] in
            if let reason = s.closeReason { throw reason.error }
            guard pdu.count <= s.mtuExchange.mtu else { throw .pduTooLong(opcode, length: pdu.count, mtu: s.mtuExchange.mtu) }
            defer { timer.schedule(s.transactions.nextDeadline) }
            return s.transactions.enqueue(.caller(waiter), opcode: opcode, pdu: pdu, now: now)
        }
        perform(actions)
        return waiter
    }

    /// Sends a command (no response; Write Command) behind the requests already queued to the
    /// channel; returns once it is with the controller. Never drops.
    package func send<Command: ATTCommandPDU>(_ command: Command) async throws {
        try await sendPDU(command.encoded(), opcode: Command.opcode)
    }

    /// A PDU that expects no response (a command, a notification, an indication), checked
    /// against the MTU.
    func sendPDU(_ pdu: [UInt8], opcode: ATTOpcode) async throws {
        try state.withLock { s throws(ATTBearerError) in
            if let reason = s.closeReason { throw reason.error }
            guard pdu.count <= s.mtuExchange.mtu else { throw .pduTooLong(opcode, length: pdu.count, mtu: s.mtuExchange.mtu) }
        }
        try await channel.send(pdu)
    }

    /// Readies a Write Request to be sent later by `ATTArmedWrite.fire()`, with no lock and no
    /// allocation then: a deferred transaction. The channel prepares the PDU (one ACL packet, a
    /// controller buffer held); the write then waits for the transaction slot like any request
    /// and keeps it. `nil` when the PDU exceeds the MTU, the channel cannot prepare it, or a
    /// request came meanwhile. A request made later disarms it; `onDisarmed` is called once if
    /// it is withdrawn unsent.
    package func armWrite(_ request: ATTWriteRequest, onDisarmed: @escaping @Sendable () -> Void) async throws -> ATTArmedWrite? {
        let pdu = request.encoded()
        try state.withLock { s throws(ATTBearerError) in
            if let reason = s.closeReason { throw reason.error }
        }
        guard pdu.count <= mtu, let prepared = channel.prepare(pdu) else { return nil }
        let armed = ATTArmedWrite(prepared: prepared, bearer: self, onDisarmed: onDisarmed)
        let now = timer.now
        let actions = state.withLock { s in
            s.transactions.enqueueArmed(.armed(armed), opcode: .writeRequest, now: now)
        }
        perform(actions)
        do {
            try await armed.turn.wait { armed.disarm() }
        } catch {
            return nil
        }
        return armed.isArmed ? armed : nil
    }

    /// An armed write fired (its deadline starts), or ended unsent (the slot moves on).
    func armedWriteEnded(_ armed: ATTArmedWrite, fired: Bool) {
        let now = timer.now
        let actions = state.withLock { s in
            defer { timer.schedule(s.transactions.nextDeadline) }
            return fired ? s.transactions.fired(.armed(armed), now: now) : s.transactions.withdrawn(.armed(armed))
        }
        perform(actions)
    }

    /// Exchange MTU as the client (once per connection; later calls return the MTU in effect).
    /// A server that does not support the request leaves the MTU at 23.
    @discardableResult
    package func exchangeMTU() async throws -> Int {
        let exchange: ATTExchangeMTURequest
        switch state.withLock({ $0.mtuExchange.startClientExchange() }) {
        case .send(let request): exchange = request
        case .startedBefore(let mtu): return mtu
        }
        do {
            // The receive path applies the server's MTU before the next request can start.
            _ = try await request(exchange)
        } catch let error as ATTError where error.code == .requestNotSupported {
            return mtu
        }
        return mtu
    }

    /// `exchangeMTU` without waiting for it: `then` gets the MTU once the exchange has ended
    /// (answered, refused or failed: the link then keeps ATT_MTU 23), or at once when one was
    /// already started, on the thread that learns it.
    package func startMTUExchange(then: @escaping @Sendable (Int) -> Void) {
        let exchange: ATTExchangeMTURequest
        switch state.withLock({ $0.mtuExchange.startClientExchange() }) {
        case .send(let request): exchange = request
        case .startedBefore(let mtu): return then(mtu)
        }
        // The receive path applies the server's MTU before the response reaches `then`.
        post(exchange) { [weak self] _ in then(self?.mtu ?? ATTMTU.minimum) }
    }

    /// Attaches the server role: the peer's requests, commands and confirmations go to it.
    func attach(_ server: GATTServerConnection) {
        state.withLock { $0.server = server }
    }

    /// Closes the bearer: every waiting request fails with `reason`'s error, once; the server
    /// role closes. Idempotent.
    package func close(_ reason: ATTBearerCloseReason) {
        let actions = state.withLock { s in s.transactions.close(reason) }
        perform(actions)
    }

    // MARK: Carrying out the machine's actions (never under the lock)

    private func perform(_ actions: [ATTTransactions<Requester>.Action]) {
        for action in actions {
            switch action {
            case .send(let id, let pdu):
                channel.post(pdu) { [self] result in
                    if case .failure(let error) = result { sendFailed(id: id, error: error) }
                }
            case .turn(.armed(let armed)):
                armed.reachedTurn()
            case .withdraw(.armed(let armed)):
                // A write that fired meanwhile is not withdrawn: its deadline starts instead.
                if !armed.disarm() { armed.settle() }
            case .complete(.caller(let waiter), let result):
                waiter.resolve(result)
            case .close(let reason):
                closed(reason)
            case .turn(.caller), .withdraw(.caller), .complete(.armed, _):
                break
            }
        }
    }

    private func sendFailed(id: UInt64, error: any Error) {
        let actions = state.withLock { s in s.transactions.sendFailed(id: id, error: error) }
        perform(actions)
    }

    private func closed(_ reason: ATTBearerCloseReason) {
        let (server, handlers) = state.withLock { s in
            defer {
                s.server = nil
                s.handlers = [:]
                s.defaultHandler = nil
                publishValueRoutes(s)
            }
            return (s.server, (s.handlers, s.defaultHandler))
        }
        // Told outside the lock: whoever streams from a handler hears that no more values come.
        for handler in handlers.0.values { handler.attributeBearerDidClose(reason) }
        handlers.1?.attributeBearerDidClose(reason)
        timer.stop()
        server?.close()
    }

    private func deadlinePassed(_ now: Duration) {
        let actions = state.withLock { s in
            defer { timer.schedule(s.transactions.nextDeadline) }
            return s.transactions.expire(now: now)
        }
        perform(actions)
    }

    // MARK: Receive path

    /// One PDU received on CID 4, as a batch of its own: its value handlers wake their consumers
    /// before this returns. `time` is when its bytes were read. Never throws or traps: malformed
    /// input is counted in `statistics` and dropped.
    package func receive(_ pdu: UnsafeRawBufferPointer, at time: HostTime) {
        receiveInBatch(pdu, at: time)
        finishBatch()
    }

    /// The end of one transport read: value handlers wake their consumers once for all of it.
    func finishBatch() {
        valueRoutes.current()?._withUnsafeGuaranteedRef { $0.finishBatch() }
    }

    /// A PDU of a transport read whose end `finishBatch()` reports (the link's receive path).
    func receiveInBatch(_ pdu: UnsafeRawBufferPointer, at time: HostTime) {
        guard let first = pdu.first else {
            state.withLock { $0.record(.malformedPDU(.empty)) }
            return
        }
        // Notifications first, without the jump through the opcode table: nearly every PDU of a
        // busy link is one.
        if first == ATTOpcode.handleValueNotification.rawValue {
            receiveValue(pdu, opcode: .handleValueNotification, at: time)
            return
        }
        let opcode = ATTOpcode(rawValue: first)
        switch opcode {
        case .handleValueNotification, .handleValueIndication:
            receiveValue(pdu, opcode: opcode, at: time)
        case .multipleHandleValueNotification:
            receiveMultipleValues(pdu, at: time)
        case .exchangeMTURequest:
            receiveExchangeMTURequest(pdu)
        default:
            if opcode.isResponse {
                receiveResponse(pdu, opcode: opcode)
            } else {
                receiveClientPDU(pdu, opcode: opcode, at: time)
            }
        }
    }

    private static let confirmation: [UInt8] = [ATTOpcode.handleValueConfirmation.rawValue]

    @inline(__always)
    private func receiveValue(_ pdu: UnsafeRawBufferPointer, opcode: ATTOpcode, at time: HostTime) {
        guard pdu.count >= 3 else {
            state.withLock { $0.record(.malformedPDU(.truncated(opcode, needed: 3, got: pdu.count))) }
            return
        }
        let handle = AttributeHandle(UInt16(pdu[1]) | UInt16(pdu[2]) << 8)
        let kind: ATTValueKind = opcode == .handleValueIndication ? .indication : .notification
        // No lock and no reference count: the handlers are the reader's own copy, the counts
        // the reader's alone.
        guard let routes = valueRoutes.current() else { return }
        if kind == .indication {
            valueCounts.indications.incrementBySoleWriter()
        } else {
            valueCounts.notifications.incrementBySoleWriter()
        }
        let value = UnsafeRawBufferPointer(rebasing: pdu[3...])
        if !routes._withUnsafeGuaranteedRef({ $0.deliver(value, handle: handle, kind: kind, at: time) }) {
            valueCounts.unrouted.incrementBySoleWriter()
        }
        // Confirm only once the value has been handed over (Vol 3, Part F, 3.4.7.2).
        if kind == .indication { channel.post(Self.confirmation, completion: nil) }
    }

    /// Multiple Handle Value Notification (Vol 3, Part F, 3.4.7.4): handle, length, value tuples.
    private func receiveMultipleValues(_ pdu: UnsafeRawBufferPointer, at time: HostTime) {
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: pdu[1...]))
        guard reader.remaining >= 4 else {
            state.withLock { $0.record(.malformedPDU(.truncated(.multipleHandleValueNotification, needed: 5, got: pdu.count))) }
            return
        }
        while !reader.isAtEnd {
            guard let handle = reader.readAttributeHandle(), let length = reader.readUInt16(),
                  let value = reader.readView(count: Int(length))
            else {
                state.withLock {
                    $0.record(.malformedPDU(.malformed(.multipleHandleValueNotification, reason: "tuple overruns the PDU")))
                }
                return
            }
            guard let routes = valueRoutes.current() else { return }
            valueCounts.notifications.incrementBySoleWriter()
            if !routes._withUnsafeGuaranteedRef({ $0.deliver(value, handle: handle, kind: .notification, at: time) }) {
                valueCounts.unrouted.incrementBySoleWriter()
            }
        }
    }

    /// Exchange MTU Request (Vol 3, Part F, 3.4.2.1): the bearer's own, whichever role serves.
    private func receiveExchangeMTURequest(_ pdu: UnsafeRawBufferPointer) {
        let reply: [UInt8]
        do throws(ATTDecodingError) {
            let request = try ATTExchangeMTURequest(pdu: pdu)
            let response = state.withLock { s in s.closeReason == nil ? s.mtuExchange.requestReceived(request) : nil }
            guard let response else { return }
            reply = response.encoded()
        } catch {
            state.withLock { $0.record(.malformedPDU(error)) }
            reply = ATTErrorResponse(requestOpcode: .exchangeMTURequest, handle: .reserved, error: .invalidPDU).encoded()
        }
        channel.post(reply, completion: nil)
    }

    /// A response or Error Response ends the outstanding request.
    private func receiveResponse(_ pdu: UnsafeRawBufferPointer, opcode: ATTOpcode) {
        var result: Result<[UInt8], any Error> = .success(Array(pdu))
        var errorFor: ATTOpcode?
        var exchangeResponse: ATTExchangeMTUResponse?
        do throws(ATTDecodingError) {
            if opcode == .errorResponse {
                let response = try ATTErrorResponse(pdu: pdu)
                errorFor = response.requestOpcode
                result = .failure(ATTError(response))
            } else if opcode == .exchangeMTUResponse {
                exchangeResponse = try ATTExchangeMTUResponse(pdu: pdu)
            }
        } catch {
            // An undecodable Error Response cannot name its request; an undecodable MTU
            // response ends the exchange with the MTU unchanged.
            if opcode == .errorResponse {
                state.withLock { $0.record(.malformedPDU(error)) }
                return
            }
        }
        let actions = state.withLock { s -> [ATTTransactions<Requester>.Action] in
            let wasExchange = s.transactions.outstanding?.opcode == .exchangeMTURequest
            // A response while an armed write holds the slot is its own only if it went out.
            var armedFired = false
            if case .armed(let armed)? = s.transactions.outstanding?.token { armedFired = armed.hasFired }
            let (outcome, actions) = s.transactions.received(opcode, errorFor: errorFor, result: result, armedFired: armedFired)
            switch outcome {
            case .completed:
                // The server's MTU takes effect as the exchange completes, before any later request.
                if wasExchange { s.mtuExchange.exchangeEnded(exchangeResponse) }
            case .afterClose:
                break
            case .unexpected:
                s.record(.unexpectedResponse(opcode))
            case .mismatched(let request):
                if let errorFor {
                    s.record(.mismatchedErrorResponse(request: request, reportedRequest: errorFor))
                } else {
                    s.record(.mismatchedResponse(request: request, response: opcode))
                }
            }
            timer.schedule(s.transactions.nextDeadline)
            return actions
        }
        perform(actions)
    }

    /// Requests, commands and confirmations: the server role's, or refused.
    private func receiveClientPDU(_ pdu: UnsafeRawBufferPointer, opcode: ATTOpcode, at time: HostTime) {
        let server = state.withLock { s -> GATTServerConnection?? in
            guard s.closeReason == nil else { return .none }
            if s.server == nil {
                if opcode == .handleValueConfirmation {
                    s.record(.unexpectedConfirmation)
                } else if opcode.isCommand {
                    s.statistics.ignoredCommands &+= 1
                } else {
                    s.statistics.unsupportedRequests &+= 1
                }
            }
            return .some(s.server)
        }
        guard case .some(let server) = server else { return }
        if let server {
            server.receive(pdu, opcode: opcode, at: time)
        } else if !opcode.isCommand, opcode != .handleValueConfirmation {
            channel.post(ATTErrorResponse(requestOpcode: opcode, handle: .reserved, error: .requestNotSupported).encoded(),
                         completion: nil)
        }
    }
}
