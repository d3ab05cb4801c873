import StrobeHCI
import Synchronization

/// The ATT bearer of one LE connection, client side (Vol 3, Part F, 3.3): sequential
/// transactions, the transaction timeout, MTU exchange, and the routing of notifications and
/// indications to handlers keyed by attribute handle.
///
/// Requests run one at a time in FIFO order. L2CAP calls `receive(_:at:)` for every PDU on CID 4;
/// responses resume the waiting request, server-pushed values go to their handler without a copy.
/// Peer requests we do not serve are answered with Request Not Supported (a server slots in there).
/// All mutable state sits behind one `Mutex`; continuations are resumed outside it, each once.
public final class ATTBearer: Sendable {
    public struct Configuration: Sendable {
        /// Our receive MTU, announced in Exchange MTU (clamped to 23...517 and the channel's limit).
        public var preferredMTU: Int
        /// How long a request may wait for its response before the bearer closes (30 s in the spec).
        public var transactionTimeout: Duration

        public init(preferredMTU: Int = ATTMTU.maximum, transactionTimeout: Duration = .seconds(30)) {
            self.preferredMTU = preferredMTU
            self.transactionTimeout = transactionTimeout
        }
    }

    public let configuration: Configuration
    /// The receive MTU we announce: the configured one, within 23...517 and the channel's limit.
    public let localMTU: Int
    private let channel: any ATTChannel
    private let clock: any Clock<Duration>
    private let state = Mutex(State())
    /// The handlers of pushed values, published for the receive path to read with no lock;
    /// republished (under `state`'s lock) whenever `State.handlers` changes or the bearer closes.
    private let valueRoutes = PublishedReference<ValueRoutes>(ValueRoutes(handlers: [:], defaultHandler: nil, isOpen: true))
    private let valueCounts = ValueCounts()
    /// Replies generated on the receive path (confirmations, Exchange MTU and Error Responses),
    /// sent in order by one task, since `receive` cannot suspend.
    private let replies: AsyncStream<[UInt8]>.Continuation

    public init(
        channel: any ATTChannel,
        configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.channel = channel
        self.configuration = configuration
        self.clock = clock
        localMTU = max(ATTMTU.minimum, min(configuration.preferredMTU, ATTMTU.maximum, channel.maximumPayload))
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        replies = continuation
        Task { [channel] in
            for await pdu in stream {
                // A reply that cannot be sent means the link is going away; the close follows.
                try? await channel.send(pdu)
            }
        }
    }

    deinit {
        replies.finish()
    }

    // MARK: State

    private final class ValueRoutes: Sendable {
        let handlers: [UInt16: any ATTValueHandler]
        let defaultHandler: (any ATTValueHandler)?
        let isOpen: Bool

        init(handlers: [UInt16: any ATTValueHandler], defaultHandler: (any ATTValueHandler)?, isOpen: Bool) {
            self.handlers = handlers
            self.defaultHandler = defaultHandler
            self.isOpen = isOpen
        }
    }

    /// The statistics the receive path keeps, counted without a lock.
    private struct ValueCounts: ~Copyable, Sendable {
        let notifications = Atomic<UInt64>(0)
        let indications = Atomic<UInt64>(0)
        let unrouted = Atomic<UInt64>(0)
    }

    /// With `state`'s lock held, so that tables are published in the order they change.
    private func publishValueRoutes(_ state: borrowing State) {
        valueRoutes.replace(with: ValueRoutes(
            handlers: state.handlers, defaultHandler: state.defaultHandler, isOpen: state.closeReason == nil))
    }

    private struct Transaction {
        let id: UInt64
        let request: ATTOpcode
        /// Installed once the request is on the wire and its task waits for the response.
        var continuation: CheckedContinuation<[UInt8], any Error>?
        /// The waiting task was cancelled: the response, when it comes, is dropped.
        var abandoned = false
        var timer: Task<Void, Never>?
        /// A write readied ahead of time holds the slot; its response is not handed to anyone.
        var armed: ATTArmedWrite?
    }

    private struct Waiter {
        let id: UInt64
        let request: ATTOpcode
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var closeReason: ATTBearerCloseReason?
        var outstanding: Transaction?
        var queue: [Waiter] = []
        /// Responses that arrived before their task started waiting (the channel's `send` had not
        /// returned yet).
        var early: [UInt64: Result<[UInt8], any Error>] = [:]
        var nextID: UInt64 = 0
        var mtu = ATTMTU.minimum
        var clientMTUExchangeStarted = false
        var handlers: [UInt16: any ATTValueHandler] = [:]
        var defaultHandler: (any ATTValueHandler)?
        var statistics = ATTBearerStatistics()

        mutating func record(_ violation: ATTProtocolViolation) {
            statistics.protocolViolations &+= 1
            statistics.lastProtocolViolation = violation
        }

        /// Ends the outstanding transaction and gives the turn to the next queued request.
        mutating func finishOutstanding() -> (timer: Task<Void, Never>?, next: CheckedContinuation<Void, any Error>?) {
            let timer = outstanding?.timer
            outstanding = nil
            guard !queue.isEmpty else { return (timer, nil) }
            let waiter = queue.removeFirst()
            outstanding = Transaction(id: waiter.id, request: waiter.request)
            return (timer, waiter.continuation)
        }
    }

    /// What closing leaves to do outside the lock.
    private struct Teardown {
        var responseWaiters: [CheckedContinuation<[UInt8], any Error>] = []
        var turnWaiters: [CheckedContinuation<Void, any Error>] = []
        var timer: Task<Void, Never>?
        var armed: ATTArmedWrite?
        var error: ATTBearerError

        func run() {
            timer?.cancel()
            armed?.disarm()
            for waiter in turnWaiters { waiter.resume(throwing: error) }
            for waiter in responseWaiters { waiter.resume(throwing: error) }
        }
    }

    // MARK: Public surface

    /// The ATT_MTU in effect: 23 until an exchange (either side's) completes.
    public var mtu: Int { state.withLock { $0.mtu } }

    public var isClosed: Bool { state.withLock { $0.closeReason != nil } }
    public var closeReason: ATTBearerCloseReason? { state.withLock { $0.closeReason } }
    public var statistics: ATTBearerStatistics {
        var statistics = state.withLock { $0.statistics }
        statistics.notificationsReceived = valueCounts.notifications.load(ordering: .relaxed)
        statistics.indicationsReceived = valueCounts.indications.load(ordering: .relaxed)
        statistics.unroutedValues = valueCounts.unrouted.load(ordering: .relaxed)
        return statistics
    }

    /// Requests waiting for their turn behind the outstanding one.
    var queuedRequestCount: Int { state.withLock { $0.queue.count } }
    /// The request on the wire or about to be, abandoned or not.
    var outstandingRequest: ATTOpcode? { state.withLock { $0.outstanding?.request } }

    /// Routes notifications and indications of `handle` to `handler` (nil removes the route).
    public func setValueHandler(_ handler: (any ATTValueHandler)?, forHandle handle: UInt16) {
        let previous = state.withLock { state in
            defer { publishValueRoutes(state) }
            if let handler { return state.handlers.updateValue(handler, forKey: handle) }
            return state.handlers.removeValue(forKey: handle)
        }
        _ = previous  // released outside the lock
    }

    /// Receives values of handles that have no handler of their own.
    public func setDefaultValueHandler(_ handler: (any ATTValueHandler)?) {
        let previous = state.withLock { state in
            defer {
                state.defaultHandler = handler
                publishValueRoutes(state)
            }
            return state.defaultHandler
        }
        _ = previous
    }

    /// Sends one request and waits for its response. Requests are sent one at a time, in the
    /// order they were made. Throws `ATTError` for an Error Response, `ATTBearerError`,
    /// `CancellationError` (the transaction itself still runs to its response or timeout), or
    /// the channel's error.
    public func request<Request: ATTRequestPDU>(_ request: Request) async throws -> Request.Response {
        let response = try await transact(request.encoded(), opcode: Request.opcode)
        do throws(ATTDecodingError) {
            return try Request.Response(pdu: response)
        } catch {
            state.withLock { $0.record(.malformedPDU(error)) }
            throw ATTBearerError.malformedResponse(error)
        }
    }

    /// Sends a command (no response; Write Command). Suspends while the channel applies flow
    /// control; never drops.
    public func send<Command: ATTCommandPDU>(_ command: Command) async throws {
        let pdu = command.encoded()
        try state.withLock { state throws(ATTBearerError) in
            if let reason = state.closeReason { throw reason.error }
            guard pdu.count <= state.mtu else { throw .pduTooLong(Command.opcode, length: pdu.count, mtu: state.mtu) }
        }
        try await channel.send(pdu)
    }

    /// Readies a Write Request to be sent later by `ATTArmedWrite.fire()`, with no lock and no
    /// allocation then. Waits for the transaction slot like any request, then keeps it: the PDU
    /// is encoded into one ACL packet and a controller buffer held for it. `nil` (the slot given
    /// back) when the PDU exceeds the MTU or one ACL packet, no buffer is free, or requests
    /// queued meanwhile. A request made later disarms it; `onDisarmed` is called once if it is
    /// withdrawn unsent.
    public func armWrite(_ request: ATTWriteRequest, onDisarmed: @escaping @Sendable () -> Void) async throws -> ATTArmedWrite? {
        let pdu = request.encoded()
        let id = try state.withLock { state throws(ATTBearerError) in
            if let reason = state.closeReason { throw reason.error }
            state.nextID &+= 1
            return state.nextID
        }
        try await waitForTurn(id, opcode: .writeRequest)
        let armed = state.withLock { state -> ATTArmedWrite? in
            guard state.outstanding?.id == id, state.queue.isEmpty, pdu.count <= state.mtu, let packet = channel.arm(pdu) else { return nil }
            let armed = ATTArmedWrite(id: id, packet: packet, bearer: self, onDisarmed: onDisarmed)
            state.outstanding?.armed = armed
            return armed
        }
        if armed == nil {
            let (timer, next) = state.withLock { state in
                state.outstanding?.id == id ? state.finishOutstanding() : (nil, nil)
            }
            timer?.cancel()
            next?.resume()
        }
        return armed
    }

    /// An armed write fired, failed or was disarmed: a fired one gets its transaction timer, the
    /// others give the slot to the next request.
    func armedWriteSettled(_ armed: ATTArmedWrite) {
        enum Step { case nothing, startTimer, handOver(Task<Void, Never>?, CheckedContinuation<Void, any Error>?) }
        let phase = armed.currentPhase
        let step = state.withLock { state -> Step in
            guard let outstanding = state.outstanding, outstanding.armed === armed else { return .nothing }
            switch phase {
            case .armed: return .nothing
            case .fired: return outstanding.timer == nil ? .startTimer : .nothing
            case .failed, .disarmed:
                let (timer, next) = state.finishOutstanding()
                return .handOver(timer, next)
            }
        }
        switch step {
        case .nothing:
            break
        case .startTimer:
            armTimer(for: armed.id)
        case .handOver(let timer, let next):
            timer?.cancel()
            next?.resume()
        }
    }

    /// Exchange MTU as the client (once per connection; later calls return the MTU in effect).
    /// A server that does not support the request leaves the MTU at 23.
    @discardableResult
    public func exchangeMTU() async throws -> Int {
        let first = state.withLock { state in
            defer { state.clientMTUExchangeStarted = true }
            return !state.clientMTUExchangeStarted
        }
        guard first else { return mtu }
        do {
            // The receive path applies the server's MTU before the next request can start.
            _ = try await request(ATTExchangeMTURequest(clientRxMTU: UInt16(localMTU)))
        } catch let error as ATTError where error.code == .requestNotSupported {
            return mtu
        }
        return mtu
    }

    /// Closes the bearer: every waiting request fails with `reason`'s error, once. Idempotent.
    public func close(_ reason: ATTBearerCloseReason) {
        let teardown = state.withLock { state in
            defer { publishValueRoutes(state) }
            return Self.close(&state, reason)
        }
        teardown?.run()
        replies.finish()
    }

    private static func close(_ state: inout State, _ reason: ATTBearerCloseReason) -> Teardown? {
        guard state.closeReason == nil else { return nil }
        state.closeReason = reason
        var teardown = Teardown(error: reason.error)
        if let outstanding = state.outstanding {
            teardown.timer = outstanding.timer
            teardown.armed = outstanding.armed
            if let continuation = outstanding.continuation { teardown.responseWaiters.append(continuation) }
        }
        state.outstanding = nil
        teardown.turnWaiters = state.queue.map(\.continuation)
        state.queue = []
        state.handlers = [:]
        state.defaultHandler = nil
        return teardown
    }

    // MARK: Transactions

    private func transact(_ pdu: [UInt8], opcode: ATTOpcode) async throws -> [UInt8] {
        let id = try state.withLock { state throws(ATTBearerError) in
            if let reason = state.closeReason { throw reason.error }
            state.nextID &+= 1
            return state.nextID
        }
        try await waitForTurn(id, opcode: opcode)
        // Our turn: the slot is ours until the response, the timeout, or we give it back unsent.
        let gate: (any Error)? = state.withLock { state in
            guard state.outstanding?.id == id else { return state.closeReason?.error ?? ATTBearerError.closed(.local) }
            if Task.isCancelled { return CancellationError() }
            guard pdu.count <= state.mtu else { return ATTBearerError.pduTooLong(opcode, length: pdu.count, mtu: state.mtu) }
            return nil
        }
        var sendError = gate
        if gate == nil {
            do {
                try await channel.send(pdu)
            } catch {
                sendError = error
            }
        }
        if let sendError {
            let (timer, next) = state.withLock { state in
                state.outstanding?.id == id ? state.finishOutstanding() : (nil, nil)
            }
            timer?.cancel()
            next?.resume()
            throw sendError
        }
        armTimer(for: id)
        return try await waitForResponse(id)
    }

    private func waitForTurn(_ id: UInt64, opcode: ATTOpcode) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (immediate, armed) = state.withLock { state -> (Result<Void, any Error>?, ATTArmedWrite?) in
                    if let reason = state.closeReason { return (.failure(reason.error), nil) }
                    if Task.isCancelled { return (.failure(CancellationError()), nil) }
                    if state.outstanding == nil, state.queue.isEmpty {
                        state.outstanding = Transaction(id: id, request: opcode)
                        return (.success(()), nil)
                    }
                    state.queue.append(Waiter(id: id, request: opcode, continuation: continuation))
                    return (nil, state.outstanding?.armed)
                }
                if let immediate { continuation.resume(with: immediate) }
                // A write armed for a trigger gives way to a request made now; one that fired
                // (or failed) gets its timer or frees the slot.
                if let armed, !armed.disarm() { armed.settle() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
                return state.queue.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func waitForResponse(_ id: UInt64) async throws -> [UInt8] {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
                let immediate: Result<[UInt8], any Error>? = state.withLock { state in
                    if let early = state.early.removeValue(forKey: id) { return early }
                    guard state.outstanding?.id == id else {
                        return .failure(state.closeReason?.error ?? ATTBearerError.closed(.local))
                    }
                    if Task.isCancelled {
                        state.outstanding?.abandoned = true
                        return .failure(CancellationError())
                    }
                    state.outstanding?.continuation = continuation
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<[UInt8], any Error>? in
                guard state.outstanding?.id == id, let continuation = state.outstanding?.continuation else { return nil }
                state.outstanding?.continuation = nil
                state.outstanding?.abandoned = true
                return continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// The transaction timer starts once the request is on the wire.
    private func armTimer(for id: UInt64) {
        let timeout = configuration.transactionTimeout
        let clock = self.clock
        let timer = Task { [weak self] in
            do { try await clock.sleep(for: timeout) } catch { return }
            self?.transactionTimerFired(id)
        }
        let (stale, previous) = state.withLock { state -> (Bool, Task<Void, Never>?) in
            guard state.outstanding?.id == id else { return (true, nil) }
            defer { state.outstanding?.timer = timer }
            return (false, state.outstanding?.timer)
        }
        previous?.cancel()
        if stale { timer.cancel() }
    }

    private func transactionTimerFired(_ id: UInt64) {
        let teardown = state.withLock { state -> Teardown? in
            guard let outstanding = state.outstanding, outstanding.id == id else { return nil }
            defer { publishValueRoutes(state) }
            return Self.close(&state, .transactionTimeout(request: outstanding.request))
        }
        guard let teardown else { return }
        teardown.run()
        replies.finish()
    }

    // MARK: Receive path

    /// Entry point for every PDU L2CAP delivers on CID 4. `time` is when its bytes were read.
    /// Never throws or traps: malformed input is counted in `statistics` and dropped.
    public func receive(_ pdu: UnsafeRawBufferPointer, at time: HostTime) {
        guard let first = pdu.first else {
            state.withLock { $0.record(.malformedPDU(.empty)) }
            return
        }
        let opcode = ATTOpcode(rawValue: first)
        switch opcode {
        case .handleValueNotification, .handleValueIndication:
            receiveValue(pdu, opcode: opcode, at: time)
        case .multipleHandleValueNotification:
            receiveMultipleValues(pdu, at: time)
        case .errorResponse:
            receiveErrorResponse(pdu)
        case .exchangeMTURequest:
            receiveExchangeMTURequest(pdu)
        case .handleValueConfirmation:
            state.withLock { $0.record(.unexpectedConfirmation) }
        default:
            if Self.isResponse(opcode) {
                completeTransaction(.success(Array(pdu)), response: opcode, errorFor: nil)
            } else if opcode.isCommand {
                state.withLock { $0.statistics.ignoredCommands &+= 1 }
            } else {
                // A request (known or not) we do not serve: the server role will answer here.
                let served = state.withLock { state -> Bool in
                    guard state.closeReason == nil else { return false }
                    state.statistics.unsupportedRequests &+= 1
                    return true
                }
                if served {
                    reply(ATTErrorResponse(requestOpcode: opcode, handle: 0, error: .requestNotSupported).encoded())
                }
            }
        }
    }

    private static func isResponse(_ opcode: ATTOpcode) -> Bool {
        switch opcode.rawValue {
        case 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x21: true
        default: false
        }
    }

    /// Answers in order: straight into the channel's queue when it has one.
    private func reply(_ pdu: [UInt8]) {
        if !channel.enqueue(pdu) { replies.yield(pdu) }
    }

    private static let confirmation: [UInt8] = [ATTOpcode.handleValueConfirmation.rawValue]

    private func receiveValue(_ pdu: UnsafeRawBufferPointer, opcode: ATTOpcode, at time: HostTime) {
        guard pdu.count >= 3 else {
            state.withLock { $0.record(.malformedPDU(.truncated(opcode, needed: 3, got: pdu.count))) }
            return
        }
        let handle = UInt16(pdu[1]) | UInt16(pdu[2]) << 8
        let kind: ATTValueKind = opcode == .handleValueIndication ? .indication : .notification
        // No lock: the handlers are published and the counts atomic.
        let open = valueRoutes.read { routes -> Bool in
            guard let routes, routes.isOpen else { return false }
            if kind == .indication {
                valueCounts.indications.add(1, ordering: .relaxed)
            } else {
                valueCounts.notifications.add(1, ordering: .relaxed)
            }
            guard let handler = routes.handlers[handle] ?? routes.defaultHandler else {
                valueCounts.unrouted.add(1, ordering: .relaxed)
                return true
            }
            handler.attributeValueReceived(UnsafeRawBufferPointer(rebasing: pdu[3...]), handle: handle, kind: kind, at: time)
            return true
        }
        // Confirm only once the value has been handed over (Vol 3, Part F, 3.4.7.2).
        if open, kind == .indication { reply(Self.confirmation) }
    }

    /// Multiple Handle Value Notification (Vol 3, Part F, 3.4.7.4): handle, length, value tuples.
    private func receiveMultipleValues(_ pdu: UnsafeRawBufferPointer, at time: HostTime) {
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: pdu[1...]))
        guard reader.remaining >= 4 else {
            state.withLock { $0.record(.malformedPDU(.truncated(.multipleHandleValueNotification, needed: 5, got: pdu.count))) }
            return
        }
        while !reader.isAtEnd {
            guard let handle = reader.readUInt16(), let length = reader.readUInt16(),
                  let value = reader.readView(count: Int(length))
            else {
                state.withLock {
                    $0.record(.malformedPDU(.malformed(.multipleHandleValueNotification, reason: "tuple overruns the PDU")))
                }
                return
            }
            let open = valueRoutes.read { routes -> Bool in
                guard let routes, routes.isOpen else { return false }
                valueCounts.notifications.add(1, ordering: .relaxed)
                guard let handler = routes.handlers[handle] ?? routes.defaultHandler else {
                    valueCounts.unrouted.add(1, ordering: .relaxed)
                    return true
                }
                handler.attributeValueReceived(value, handle: handle, kind: .notification, at: time)
                return true
            }
            guard open else { return }
        }
    }

    private func receiveErrorResponse(_ pdu: UnsafeRawBufferPointer) {
        do throws(ATTDecodingError) {
            let response = try ATTErrorResponse(pdu: pdu)
            completeTransaction(.failure(ATTError(response)), response: .errorResponse, errorFor: response.requestOpcode)
        } catch {
            state.withLock { $0.record(.malformedPDU(error)) }
        }
    }

    private func receiveExchangeMTURequest(_ pdu: UnsafeRawBufferPointer) {
        let reply: [UInt8]
        do throws(ATTDecodingError) {
            let request = try ATTExchangeMTURequest(pdu: pdu)
            let open = state.withLock { state in
                guard state.closeReason == nil else { return false }
                state.mtu = ATTMTU.effective(client: Int(request.clientRxMTU), server: localMTU)
                return true
            }
            guard open else { return }
            reply = ATTExchangeMTUResponse(serverRxMTU: UInt16(localMTU)).encoded()
        } catch {
            state.withLock { $0.record(.malformedPDU(error)) }
            reply = ATTErrorResponse(requestOpcode: .exchangeMTURequest, handle: 0, error: .invalidPDU).encoded()
        }
        self.reply(reply)
    }

    /// A response (or Error Response) for the outstanding request ends its transaction.
    private func completeTransaction(_ result: Result<[UInt8], any Error>, response: ATTOpcode, errorFor: ATTOpcode?) {
        // The server's MTU takes effect as the exchange completes, before any later request.
        var serverMTU: Int?
        if response == .exchangeMTUResponse, case .success(let bytes) = result,
           let decoded = try? ATTExchangeMTUResponse(pdu: bytes) {
            serverMTU = Int(decoded.serverRxMTU)
        }
        let completion = state.withLock { state -> (
            waiter: CheckedContinuation<[UInt8], any Error>?, timer: Task<Void, Never>?, next: CheckedContinuation<Void, any Error>?
        )? in
            guard state.closeReason == nil else { return nil }
            guard let outstanding = state.outstanding else {
                state.record(.unexpectedResponse(response))
                return nil
            }
            if let errorFor {
                guard errorFor == outstanding.request else {
                    state.record(.mismatchedErrorResponse(request: outstanding.request, reportedRequest: errorFor))
                    return nil
                }
            } else if outstanding.request.response != response {
                state.record(.mismatchedResponse(request: outstanding.request, response: response))
                return nil
            }
            if outstanding.request == .exchangeMTURequest, let serverMTU {
                state.mtu = ATTMTU.effective(client: localMTU, server: serverMTU)
            }
            if let armed = outstanding.armed {
                // A response with nothing sent is not this write's.
                guard armed.hasFired else {
                    state.record(.unexpectedResponse(response))
                    return nil
                }
            } else if outstanding.abandoned {
                state.statistics.abandonedResponses &+= 1
            } else if outstanding.continuation == nil {
                state.early[outstanding.id] = result
            }
            let (timer, next) = state.finishOutstanding()
            return (outstanding.continuation, timer, next)
        }
        guard let completion else { return }
        completion.timer?.cancel()
        completion.waiter?.resume(with: result)
        completion.next?.resume()
    }
}
