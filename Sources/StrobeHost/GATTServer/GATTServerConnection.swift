import StrobeHCI
import StrobeSecurity
import StrobeBase
import Synchronization

/// The GATT server as one client sees it: answers that client's ATT requests from the attribute
/// database (Core Vol 3, Part F, 3.4 and Part G, 4), keeps its MTU, its Client Characteristic
/// Configuration values and its prepared writes, and sends it notifications and indications
/// (one indication outstanding, confirmed or timed out).
public final class GATTServerConnection: Sendable {
    /// Called on the reader thread when the client changes a CCCD: the value handle and what it enabled.
    public typealias SubscriptionHandler = @Sendable (_ valueHandle: AttributeHandle, _ configuration: GATTClientConfiguration) -> Void

    /// Identifies this client to the read and write handlers.
    public let id: GATTServerConnectionID
    /// The attribute table served to this client.
    public let database: GATTAttributeDatabase
    /// The link's bearer: it owns the MTU and carries every PDU.
    package let bearer: ATTBearer
    private let indicationTimeout: Duration
    private let linkSecurity: @Sendable () -> GATTLinkSecurity
    private let timer: DeadlineTimer
    private let state: Lock<State>

    private struct State {
        var configurations: [AttributeHandle: GATTClientConfiguration] = [:]  // by CCCD handle
        var prepared: [(handle: AttributeHandle, offset: Int, value: [UInt8])] = []
        /// The indication waiting for its confirmation (one at a time, Vol 3, Part F, 3.3.2).
        var indication: (waiter: Waiter<Void>, handle: AttributeHandle, deadline: Duration)?
        var onSubscription: SubscriptionHandler?
        /// The host's own watcher of CCCD writes (it keeps a bonded client's), beside the app's.
        var onConfigurationWritten: (@Sendable () -> Void)?
        var closed = false
        var counters = GATTServerCounters()
    }

    private static let nextID = Atomic<UInt64>(1)

    /// The server role on `bearer`'s link, attached to it: the peer's requests come here.
    /// `linkSecurity` says how the link is protected now (checked against each attribute's
    /// requirement); without it the link counts as unencrypted.
    package init(database: GATTAttributeDatabase, bearer: ATTBearer,
                clock: any Clock<Duration> = ContinuousClock(), indicationTimeout: Duration = .seconds(30),
                linkSecurity: @escaping @Sendable () -> GATTLinkSecurity = { GATTLinkSecurity(level: .none, bonded: false) }) {
        id = GATTServerConnectionID(rawValue: Self.nextID.add(1, ordering: .relaxed).newValue)
        self.linkSecurity = linkSecurity
        self.database = database
        self.bearer = bearer
        self.indicationTimeout = indicationTimeout
        state = Lock(State())
        timer = DeadlineTimer(clock: clock, loop: bearer.loop)
        timer.onFire { [weak self] now in self?.indicationDeadlinePassed(now) }
        bearer.attach(self)
    }

    deinit {
        timer.stop()
    }

    /// The ATT_MTU in effect on the link (the bearer's).
    public var mtu: Int { bearer.mtu }
    package var counters: GATTServerCounters { state.withLock { $0.counters } }

    /// Sets the closure called when the client writes a CCCD, replacing any earlier one; nil removes it.
    public func setSubscriptionHandler(_ handler: SubscriptionHandler?) {
        state.withLock { $0.onSubscription = handler }
    }

    /// What the client enabled on the characteristic whose value is at `valueHandle`.
    public func configuration(ofValue valueHandle: AttributeHandle) -> GATTClientConfiguration {
        guard let cccd = clientConfigurationHandle(ofValue: valueHandle) else { return [] }
        return state.withLock { $0.configurations[cccd] ?? [] }
    }

    /// Every CCCD the client enabled on this link, by CCCD handle.
    public var clientConfigurations: [AttributeHandle: GATTClientConfiguration] {
        state.withLock { $0.configurations.filter { !$0.value.isEmpty } }
    }

    /// Sets again what a bonded client enabled on an earlier link (Vol 3, Part G, 3.3.3.3):
    /// each value on a CCCD of the database that this link has not set yet, each reported to
    /// the subscription handler as if written. Handles that are not CCCDs are ignored.
    func restore(_ configurations: [AttributeHandle: GATTClientConfiguration]) {
        let attributes = database.snapshot
        var restored: [(valueHandle: AttributeHandle, configuration: GATTClientConfiguration)] = []
        state.withLock { s in
            for (handle, configuration) in configurations.sorted(by: { $0.key < $1.key }) where s.configurations[handle] == nil {
                guard attributes.contains(where: { $0.handle == handle && $0.isClientConfiguration }),
                      let valueHandle = attributes.last(where: { $0.handle < handle && $0.properties != nil })?.handle
                else { continue }
                s.configurations[handle] = configuration
                restored.append((valueHandle, configuration))
            }
        }
        let handler = state.withLock { $0.onSubscription }
        for entry in restored { handler?(entry.valueHandle, entry.configuration) }
    }

    func setConfigurationWrittenHandler(_ handler: (@Sendable () -> Void)?) {
        state.withLock { $0.onConfigurationWritten = handler }
    }

    // MARK: Server-initiated

    /// Sends a notification if the client enabled them; returns whether it was sent. The value
    /// is cut to ATT_MTU - 3 bytes, as the spec requires.
    @discardableResult
    public func notify(valueHandle: AttributeHandle, value: [UInt8]) async throws(StrobeError) -> Bool {
        try await filingErrors {
            guard configuration(ofValue: valueHandle).contains(.notification) else { return false }
            let pdu = ATTHandleValueNotification(handle: valueHandle, value: Array(value.prefix(mtu - 3))).encoded()
            try await bearer.sendPDU(pdu, opcode: .handleValueNotification)
            state.withLock { $0.counters.notificationsSent += 1 }
            return true
        }
    }

    /// Sends an indication if the client enabled them and waits for its confirmation; throws
    /// `StrobeError.gatt(.indicationTimeout)` when none comes, `.gatt(.indicationInProgress)`
    /// when one is already outstanding, `.gatt(.closed)` when the link goes away.
    @discardableResult
    public func indicate(valueHandle: AttributeHandle, value: [UInt8]) async throws(StrobeError) -> Bool {
        try await filingErrors {
            guard configuration(ofValue: valueHandle).contains(.indication) else { return false }
            let pdu = ATTHandleValueIndication(handle: valueHandle, value: Array(value.prefix(mtu - 3))).encoded()
            let waiter = Waiter<Void>()
            let now = timer.now
            try state.withLock { s throws(GATTError) in
                if s.closed { throw .closed }
                if s.indication != nil { throw .indicationInProgress }
                s.indication = (waiter, valueHandle, now + indicationTimeout)
                s.counters.indicationsSent += 1
                timer.schedule(now + indicationTimeout)
            }
            bearer.channel.post(pdu) { [weak self] result in
                if case .failure(let error) = result { self?.finishIndication(.failure(error)) }
            }
            try await waiter.wait()
            return true
        }
    }

    /// The link went down: an outstanding indication fails.
    public func close() {
        state.withLock { $0.closed = true }
        finishIndication(.failure(GATTError.closed))
        timer.stop()
    }

    private func finishIndication(_ result: Result<Void, any Error>) {
        let waiter = state.withLock { s -> Waiter<Void>? in
            defer {
                s.indication = nil
                timer.schedule(nil)
            }
            return s.indication?.waiter
        }
        waiter?.resolve(result)
    }

    private func indicationDeadlinePassed(_ now: Duration) {
        let expired = state.withLock { s -> (Waiter<Void>, AttributeHandle)? in
            guard let indication = s.indication, indication.deadline <= now else { return nil }
            s.indication = nil
            return (indication.waiter, indication.handle)
        }
        if let (waiter, handle) = expired { waiter.fail(GATTError.indicationTimeout(handle: handle)) }
    }

    private func clientConfigurationHandle(ofValue valueHandle: AttributeHandle) -> AttributeHandle? {
        let attributes = database.snapshot
        guard let index = attributes.firstIndex(where: { $0.handle == valueHandle }) else { return nil }
        for attribute in attributes[(index + 1)...] {
            if attribute.type == .characteristic || attribute.type == .primaryService || attribute.type == .secondaryService { break }
            if attribute.isClientConfiguration { return attribute.handle }
        }
        return nil
    }

    // MARK: Requests (reader thread)

    /// One PDU the client sent (a request, a command or a confirmation), routed here by the
    /// bearer. Answers go out in order on the channel.
    func receive(_ pdu: UnsafeRawBufferPointer, opcode: ATTOpcode, at time: HostTime) {
        if opcode == .handleValueConfirmation {
            let expected = state.withLock { $0.indication != nil }
            if expected { finishIndication(.success(())) } else { state.withLock { $0.counters.unexpectedConfirmations += 1 } }
            return
        }
        state.withLock { $0.counters.requests[opcode, default: 0] += 1 }
        let (response, subscription) = answer(opcode, Array(pdu))
        if let response { bearer.channel.post(response, completion: nil) }
        if let subscription {
            let (handler, written) = state.withLock { ($0.onSubscription, $0.onConfigurationWritten) }
            handler?(subscription.valueHandle, subscription.configuration)
            written?()
        }
    }

    private func error(_ opcode: ATTOpcode, _ handle: AttributeHandle, _ code: ATTErrorCode) -> [UInt8] {
        state.withLock { $0.counters.errorResponses += 1 }
        return ATTErrorResponse(requestOpcode: opcode, handle: handle, error: code).encoded()
    }

    private typealias Attribute = GATTAttributeDatabase.Attribute

    private func groupEnd(of handle: AttributeHandle, in attributes: [Attribute]) -> AttributeHandle {
        let next = attributes.first { $0.handle > handle && ($0.type == .primaryService || $0.type == .secondaryService) }
        return next.map { $0.handle.advanced(by: -1) } ?? (attributes.last?.handle ?? handle)
    }

    private func read(_ attribute: Attribute) -> [UInt8] {
        if attribute.isClientConfiguration {
            let value = state.withLock { $0.configurations[attribute.handle] ?? [] }.rawValue
            return [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        return attribute.onRead?(id) ?? attribute.value
    }

    private func answer(_ opcode: ATTOpcode, _ pdu: [UInt8]) -> ([UInt8]?, (valueHandle: AttributeHandle, configuration: GATTClientConfiguration)?) {
        let attributes = database.snapshot
        let mtu = bearer.mtu
        do throws(ATTDecodingError) {
            switch opcode {
            case .findInformationRequest:
                let request = try ATTFindInformationRequest(pdu: pdu)
                guard request.startingHandle != 0, request.startingHandle <= request.endingHandle else {
                    return (error(opcode, request.startingHandle, .invalidHandle), nil)
                }
                let found = attributes.filter { (request.startingHandle...request.endingHandle).contains($0.handle) }
                guard let first = found.first else { return (error(opcode, request.startingHandle, .attributeNotFound), nil) }
                let size = first.type.attEncodedCount
                let entries = found.prefix { $0.type.attEncodedCount == size }.prefix((mtu - 2) / (2 + size))
                return (ATTFindInformationResponse(entries: entries.map { ATTHandleUUID(handle: $0.handle, uuid: $0.type) }).encoded(), nil)

            case .findByTypeValueRequest:
                let request = try ATTFindByTypeValueRequest(pdu: pdu)
                guard request.startingHandle != 0, request.startingHandle <= request.endingHandle else {
                    return (error(opcode, request.startingHandle, .invalidHandle), nil)
                }
                let type = BluetoothUUID(request.attributeType)
                let found = attributes.filter {
                    (request.startingHandle...request.endingHandle).contains($0.handle) && $0.type == type && $0.value == request.attributeValue
                }
                guard !found.isEmpty else { return (error(opcode, request.startingHandle, .attributeNotFound), nil) }
                let grouping = type == .primaryService || type == .secondaryService
                let handles = found.prefix((mtu - 1) / 4).map {
                    ATTHandlesInformation(foundAttributeHandle: $0.handle,
                                          groupEndHandle: grouping ? groupEnd(of: $0.handle, in: attributes) : $0.handle)
                }
                return (ATTFindByTypeValueResponse(handles: handles).encoded(), nil)

            case .readByTypeRequest:
                let request = try ATTReadByTypeRequest(pdu: pdu)
                guard request.startingHandle != 0, request.startingHandle <= request.endingHandle else {
                    return (error(opcode, request.startingHandle, .invalidHandle), nil)
                }
                let found = attributes.filter {
                    (request.startingHandle...request.endingHandle).contains($0.handle) && $0.type == request.attributeType
                }
                guard let first = found.first else { return (error(opcode, request.startingHandle, .attributeNotFound), nil) }
                guard first.permissions.contains(.read) else { return (error(opcode, first.handle, .readNotPermitted), nil) }
                if let code = insufficientSecurity(first) { return (error(opcode, first.handle, code), nil) }
                let length = min(read(first).count, mtu - 4, 253)
                var entries: [ATTHandleValue] = []
                for attribute in found {
                    guard attribute.permissions.contains(.read), insufficientSecurity(attribute) == nil else { break }
                    let value = read(attribute)
                    guard min(value.count, mtu - 4, 253) == length, entries.count < (mtu - 2) / (length + 2) else { break }
                    entries.append(ATTHandleValue(handle: attribute.handle, value: Array(value.prefix(length))))
                }
                return (ATTReadByTypeResponse(entries: entries).encoded(), nil)

            case .readRequest, .readBlobRequest:
                let (handle, offset): (AttributeHandle, Int)
                if opcode == .readRequest {
                    handle = try ATTReadRequest(pdu: pdu).handle
                    offset = 0
                } else {
                    let request = try ATTReadBlobRequest(pdu: pdu)
                    (handle, offset) = (request.handle, Int(request.offset))
                }
                guard let attribute = attributes.first(where: { $0.handle == handle }) else {
                    return (error(opcode, handle, .invalidHandle), nil)
                }
                guard attribute.permissions.contains(.read) else { return (error(opcode, handle, .readNotPermitted), nil) }
                if let code = insufficientSecurity(attribute) { return (error(opcode, handle, code), nil) }
                let value = read(attribute)
                guard offset <= value.count else { return (error(opcode, handle, .invalidOffset), nil) }
                let part = Array(value[offset...].prefix(mtu - 1))
                state.withLock { $0.counters.reads += 1 }
                return (opcode == .readRequest ? ATTReadResponse(value: part).encoded() : ATTReadBlobResponse(value: part).encoded(), nil)

            case .readMultipleRequest:
                let request = try ATTReadMultipleRequest(pdu: pdu)
                var values: [UInt8] = []
                for handle in request.handles {
                    guard let attribute = attributes.first(where: { $0.handle == handle }) else {
                        return (error(opcode, handle, .invalidHandle), nil)
                    }
                    guard attribute.permissions.contains(.read) else { return (error(opcode, handle, .readNotPermitted), nil) }
                    if let code = insufficientSecurity(attribute) { return (error(opcode, handle, code), nil) }
                    values += read(attribute)
                }
                return (ATTReadMultipleResponse(values: Array(values.prefix(mtu - 1))).encoded(), nil)

            case .readByGroupTypeRequest:
                let request = try ATTReadByGroupTypeRequest(pdu: pdu)
                guard request.startingHandle != 0, request.startingHandle <= request.endingHandle else {
                    return (error(opcode, request.startingHandle, .invalidHandle), nil)
                }
                guard request.attributeGroupType == .primaryService || request.attributeGroupType == .secondaryService else {
                    return (error(opcode, request.startingHandle, .unsupportedGroupType), nil)
                }
                let found = attributes.filter {
                    (request.startingHandle...request.endingHandle).contains($0.handle) && $0.type == request.attributeGroupType
                }
                guard let first = found.first else { return (error(opcode, request.startingHandle, .attributeNotFound), nil) }
                let length = first.value.count
                let entries = found.prefix { $0.value.count == length }.prefix((mtu - 2) / (length + 4)).map {
                    ATTGroupData(handle: $0.handle, endGroupHandle: groupEnd(of: $0.handle, in: attributes), value: $0.value)
                }
                return (ATTReadByGroupTypeResponse(entries: entries).encoded(), nil)

            case .writeRequest, .writeCommand:
                let isRequest = opcode == .writeRequest
                let (handle, value): (AttributeHandle, [UInt8])
                if isRequest {
                    let request = try ATTWriteRequest(pdu: pdu)
                    (handle, value) = (request.handle, request.value)
                } else {
                    let command = try ATTWriteCommand(pdu: pdu)
                    (handle, value) = (command.handle, command.value)
                }
                let outcome = write(value, at: handle, in: attributes, withResponse: isRequest)
                switch outcome {
                case .refused(let code):
                    return (isRequest ? error(opcode, handle, code) : nil, nil)
                case .written(let subscription):
                    return (isRequest ? ATTWriteResponse().encoded() : nil, subscription)
                }

            case .prepareWriteRequest:
                let request = try ATTPrepareWriteRequest(pdu: pdu)
                guard let attribute = attributes.first(where: { $0.handle == request.handle }) else {
                    return (error(opcode, request.handle, .invalidHandle), nil)
                }
                guard attribute.permissions.contains(.write) else { return (error(opcode, request.handle, .writeNotPermitted), nil) }
                if let code = insufficientSecurity(attribute) { return (error(opcode, request.handle, code), nil) }
                let full = state.withLock { s -> Bool in
                    guard s.prepared.count < 64 else { return true }
                    s.prepared.append((request.handle, Int(request.offset), request.value))
                    return false
                }
                if full { return (error(opcode, request.handle, .prepareQueueFull), nil) }
                return (ATTPrepareWriteResponse(handle: request.handle, offset: request.offset, value: request.value).encoded(), nil)

            case .executeWriteRequest:
                let request = try ATTExecuteWriteRequest(pdu: pdu)
                let prepared = state.withLock { s -> [(handle: AttributeHandle, offset: Int, value: [UInt8])] in
                    defer { s.prepared = [] }
                    return s.prepared
                }
                guard request.flags == .write else { return (ATTExecuteWriteResponse().encoded(), nil) }
                // Assemble each attribute's new value from its pieces, then write them all.
                var assembled: [(handle: AttributeHandle, value: [UInt8])] = []
                for piece in prepared {
                    let index = assembled.firstIndex { $0.handle == piece.handle }
                    var value = index.map { assembled[$0].value } ?? (attributes.first { $0.handle == piece.handle }.map(read) ?? [])
                    guard piece.offset <= value.count else { return (error(opcode, piece.handle, .invalidOffset), nil) }
                    value = Array(value.prefix(piece.offset)) + piece.value
                    if let index { assembled[index].value = value } else { assembled.append((piece.handle, value)) }
                }
                for item in assembled {
                    if case .refused(let code) = write(item.value, at: item.handle, in: attributes, withResponse: true) {
                        return (error(opcode, item.handle, code), nil)
                    }
                }
                return (ATTExecuteWriteResponse().encoded(), nil)

            default:
                // Commands and stray responses get no answer; other requests are not supported.
                if opcode.isCommand || (opcode.rawValue & 1 == 1 && opcode.rawValue <= 0x21) { return (nil, nil) }
                return (error(opcode, 0, .requestNotSupported), nil)
            }
        } catch {
            return (self.error(opcode, 0, .invalidPDU), nil)
        }
    }

    /// The error for an attribute the link is not secure enough for (Core Vol 3, Part C,
    /// 10.3.1): an unencrypted link gets Insufficient Encryption when the client has a bond to
    /// encrypt with, else Insufficient Authentication; an encrypted one whose key is too weak,
    /// Insufficient Authentication.
    private func insufficientSecurity(_ attribute: Attribute) -> ATTErrorCode? {
        guard attribute.security > .none else { return nil }
        let link = linkSecurity()
        guard link.level < attribute.security else { return nil }
        if link.level == .none { return link.bonded ? .insufficientEncryption : .insufficientAuthentication }
        return .insufficientAuthentication
    }

    private enum WriteOutcome {
        case written(subscription: (valueHandle: AttributeHandle, configuration: GATTClientConfiguration)?)
        case refused(ATTErrorCode)
    }

    private func write(_ value: [UInt8], at handle: AttributeHandle, in attributes: [Attribute], withResponse: Bool) -> WriteOutcome {
        guard let attribute = attributes.first(where: { $0.handle == handle }) else { return .refused(.invalidHandle) }
        guard attribute.permissions.contains(.write) else { return .refused(.writeNotPermitted) }
        if let code = insufficientSecurity(attribute) { return .refused(code) }
        if let properties = attribute.properties {
            let allowed = withResponse ? properties.contains(.write) : properties.contains(.writeWithoutResponse)
            guard allowed else { return .refused(.writeNotPermitted) }
        }
        if attribute.isClientConfiguration {
            guard value.count == 2 else { return .refused(.invalidAttributeValueLength) }
            let configuration = GATTClientConfiguration(rawValue: UInt16(value[0]) | UInt16(value[1]) << 8)
            // The characteristic value this CCCD belongs to is the one before it in its group.
            let valueHandle = attributes.last { $0.handle < handle && $0.properties != nil }?.handle ?? .reserved
            state.withLock { $0.configurations[handle] = configuration }
            return .written(subscription: (valueHandle, configuration))
        }
        if let onWrite = attribute.onWrite, let refusal = onWrite(id, value) { return .refused(refusal) }
        database.setValue(value, at: handle)
        state.withLock { $0.counters.writes += 1 }
        return .written(subscription: nil)
    }
}

/// What a server connection has done.
package struct GATTServerCounters: Sendable, Hashable {
    /// Each request and command the client sent, by opcode.
    package var requests: [ATTOpcode: Int] = [:]
    package var reads = 0
    package var writes = 0
    package var notificationsSent = 0
    package var indicationsSent = 0
    package var errorResponses = 0
    /// Handle Value Confirmations with no indication outstanding.
    package var unexpectedConfirmations = 0
    package init() {}
}

/// How a link is protected, as the GATT server checks attribute requirements against it.
package struct GATTLinkSecurity: Sendable, Hashable {
    package var level: SMPSecurityLevel
    /// The server's host has a bond with the client (so the client can encrypt without pairing).
    package var bonded: Bool

    package init(level: SMPSecurityLevel, bonded: Bool) {
        self.level = level
        self.bonded = bonded
    }
}
