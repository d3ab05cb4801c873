import StrobeHCI
import Synchronization

/// The GATT server as one client sees it: answers that client's ATT requests from the attribute
/// database (Core Vol 3, Part F, 3.4 and Part G, 4), keeps its MTU, its Client Characteristic
/// Configuration values and its prepared writes, and sends it notifications and indications
/// (one indication outstanding, confirmed or timed out).
public final class GATTServerConnection: Sendable {
    /// Called on the reader thread when the client changes a CCCD: the value handle and what it enabled.
    public typealias SubscriptionHandler = @Sendable (_ valueHandle: UInt16, _ configuration: GATTClientConfiguration) -> Void

    public let id: GATTServerConnectionID
    public let database: GATTAttributeDatabase
    private let channel: any ATTChannel
    private let rxMTU: Int
    private let clock: any Clock<Duration>
    private let indicationTimeout: Duration
    private let state: Mutex<State>

    private struct State {
        var mtu = ATTMTU.minimum
        var configurations: [UInt16: GATTClientConfiguration] = [:]  // by CCCD handle
        var prepared: [(handle: UInt16, offset: Int, value: [UInt8])] = []
        var indication: CheckedContinuation<Void, any Error>?
        var onSubscription: SubscriptionHandler?
        var closed = false
        var counters = GATTServerCounters()
    }

    private static let nextID = Atomic<UInt64>(1)

    public init(database: GATTAttributeDatabase, channel: any ATTChannel, rxMTU: Int = ATTMTU.maximum,
                clock: any Clock<Duration> = ContinuousClock(), indicationTimeout: Duration = .seconds(30)) {
        id = GATTServerConnectionID(rawValue: Self.nextID.add(1, ordering: .relaxed).newValue)
        self.database = database
        self.channel = channel
        self.rxMTU = max(ATTMTU.minimum, min(rxMTU, ATTMTU.maximum, channel.maximumPayload))
        self.clock = clock
        self.indicationTimeout = indicationTimeout
        state = Mutex(State())
    }

    public var mtu: Int { state.withLock { $0.mtu } }
    public var counters: GATTServerCounters { state.withLock { $0.counters } }

    public func setSubscriptionHandler(_ handler: SubscriptionHandler?) {
        state.withLock { $0.onSubscription = handler }
    }

    /// What the client enabled on the characteristic whose value is at `valueHandle`.
    public func configuration(ofValue valueHandle: UInt16) -> GATTClientConfiguration {
        guard let cccd = clientConfigurationHandle(ofValue: valueHandle) else { return [] }
        return state.withLock { $0.configurations[cccd] ?? [] }
    }

    // MARK: Server-initiated

    /// Sends a notification if the client enabled them; returns whether it was sent. The value
    /// is cut to MTU - 3 bytes, as the spec requires.
    @discardableResult
    public func notify(valueHandle: UInt16, value: [UInt8]) async throws -> Bool {
        guard configuration(ofValue: valueHandle).contains(.notification) else { return false }
        let mtu = self.mtu
        try await channel.send(ATTHandleValueNotification(handle: valueHandle, value: Array(value.prefix(mtu - 3))).encoded())
        state.withLock { $0.counters.notificationsSent += 1 }
        return true
    }

    /// Sends an indication if the client enabled them and waits for its confirmation; throws
    /// `GATTServerError.indicationTimeout` when none comes, `.indicationInProgress` when one is
    /// already outstanding, `.closed` when the link goes away.
    @discardableResult
    public func indicate(valueHandle: UInt16, value: [UInt8]) async throws -> Bool {
        guard configuration(ofValue: valueHandle).contains(.indication) else { return false }
        let mtu = self.mtu
        let pdu = ATTHandleValueIndication(handle: valueHandle, value: Array(value.prefix(mtu - 3))).encoded()
        let timer = Task { [clock, indicationTimeout] in
            try await clock.sleep(for: indicationTimeout)
            self.finishIndication(.failure(GATTServerError.indicationTimeout(handle: valueHandle)))
        }
        defer { timer.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let refusal = state.withLock { s -> GATTServerError? in
                if s.closed { return .closed }
                if s.indication != nil { return .indicationInProgress }
                s.indication = continuation
                s.counters.indicationsSent += 1
                return nil
            }
            if let refusal {
                continuation.resume(throwing: refusal)
            } else if !channel.enqueue(pdu) {
                Task { try? await self.channel.send(pdu) }
            }
        }
        return true
    }

    /// The link went down: an outstanding indication fails.
    public func close() {
        state.withLock { $0.closed = true }
        finishIndication(.failure(GATTServerError.closed))
    }

    private func finishIndication(_ result: Result<Void, any Error>) {
        let continuation = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            defer { s.indication = nil }
            return s.indication
        }
        continuation?.resume(with: result)
    }

    private func clientConfigurationHandle(ofValue valueHandle: UInt16) -> UInt16? {
        let attributes = database.snapshot
        guard let index = attributes.firstIndex(where: { $0.handle == valueHandle }) else { return nil }
        for attribute in attributes[(index + 1)...] {
            if attribute.type == .characteristic || attribute.type == .primaryService || attribute.type == .secondaryService { break }
            if attribute.isClientConfiguration { return attribute.handle }
        }
        return nil
    }

    // MARK: Requests (reader thread)

    /// One PDU from the client. Answers go out in order on the channel.
    public func receive(_ pdu: UnsafeRawBufferPointer, at time: HostTime) {
        let bytes = Array(pdu)
        guard let first = bytes.first else { return }
        let opcode = ATTOpcode(rawValue: first)
        if opcode == .handleValueConfirmation {
            finishIndication(.success(()))
            return
        }
        let (response, subscription) = answer(opcode, bytes)
        if let response {
            if !channel.enqueue(response) { Task { try? await self.channel.send(response) } }
        }
        if let subscription {
            let handler = state.withLock { $0.onSubscription }
            handler?(subscription.valueHandle, subscription.configuration)
        }
    }

    private func error(_ opcode: ATTOpcode, _ handle: UInt16, _ code: ATTErrorCode) -> [UInt8] {
        state.withLock { $0.counters.errorResponses += 1 }
        return ATTErrorResponse(requestOpcode: opcode, handle: handle, error: code).encoded()
    }

    private typealias Attribute = GATTAttributeDatabase.Attribute

    private func groupEnd(of handle: UInt16, in attributes: [Attribute]) -> UInt16 {
        let next = attributes.first { $0.handle > handle && ($0.type == .primaryService || $0.type == .secondaryService) }
        return next.map { $0.handle - 1 } ?? (attributes.last?.handle ?? handle)
    }

    private func read(_ attribute: Attribute) -> [UInt8] {
        if attribute.isClientConfiguration {
            let value = state.withLock { $0.configurations[attribute.handle] ?? [] }.rawValue
            return [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        return attribute.onRead?(id) ?? attribute.value
    }

    private func answer(_ opcode: ATTOpcode, _ pdu: [UInt8]) -> ([UInt8]?, (valueHandle: UInt16, configuration: GATTClientConfiguration)?) {
        let attributes = database.snapshot
        let mtu = state.withLock { $0.mtu }
        do throws(ATTDecodingError) {
            switch opcode {
            case .exchangeMTURequest:
                let request = try ATTExchangeMTURequest(pdu: pdu)
                state.withLock { $0.mtu = max(ATTMTU.minimum, min(Int(request.clientRxMTU), rxMTU)) }
                return (ATTExchangeMTUResponse(serverRxMTU: UInt16(rxMTU)).encoded(), nil)

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
                let length = min(read(first).count, mtu - 4, 253)
                var entries: [ATTHandleValue] = []
                for attribute in found {
                    guard attribute.permissions.contains(.read) else { break }
                    let value = read(attribute)
                    guard min(value.count, mtu - 4, 253) == length, entries.count < (mtu - 2) / (length + 2) else { break }
                    entries.append(ATTHandleValue(handle: attribute.handle, value: Array(value.prefix(length))))
                }
                return (ATTReadByTypeResponse(entries: entries).encoded(), nil)

            case .readRequest, .readBlobRequest:
                let (handle, offset): (UInt16, Int)
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
                let (handle, value): (UInt16, [UInt8])
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
                let full = state.withLock { s -> Bool in
                    guard s.prepared.count < 64 else { return true }
                    s.prepared.append((request.handle, Int(request.offset), request.value))
                    return false
                }
                if full { return (error(opcode, request.handle, .prepareQueueFull), nil) }
                return (ATTPrepareWriteResponse(handle: request.handle, offset: request.offset, value: request.value).encoded(), nil)

            case .executeWriteRequest:
                let request = try ATTExecuteWriteRequest(pdu: pdu)
                let prepared = state.withLock { s -> [(handle: UInt16, offset: Int, value: [UInt8])] in
                    defer { s.prepared = [] }
                    return s.prepared
                }
                guard request.flags == .write else { return (ATTExecuteWriteResponse().encoded(), nil) }
                // Assemble each attribute's new value from its pieces, then write them all.
                var assembled: [(handle: UInt16, value: [UInt8])] = []
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

    private enum WriteOutcome {
        case written(subscription: (valueHandle: UInt16, configuration: GATTClientConfiguration)?)
        case refused(ATTErrorCode)
    }

    private func write(_ value: [UInt8], at handle: UInt16, in attributes: [Attribute], withResponse: Bool) -> WriteOutcome {
        guard let attribute = attributes.first(where: { $0.handle == handle }) else { return .refused(.invalidHandle) }
        guard attribute.permissions.contains(.write) else { return .refused(.writeNotPermitted) }
        if let properties = attribute.properties {
            let allowed = withResponse ? properties.contains(.write) : properties.contains(.writeWithoutResponse)
            guard allowed else { return .refused(.writeNotPermitted) }
        }
        if attribute.isClientConfiguration {
            guard value.count == 2 else { return .refused(.invalidAttributeValueLength) }
            let configuration = GATTClientConfiguration(rawValue: UInt16(value[0]) | UInt16(value[1]) << 8)
            // The characteristic value this CCCD belongs to is the one before it in its group.
            let valueHandle = attributes.last { $0.handle < handle && $0.properties != nil }?.handle ?? 0
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
public struct GATTServerCounters: Sendable, Hashable {
    public var reads = 0
    public var writes = 0
    public var notificationsSent = 0
    public var indicationsSent = 0
    public var errorResponses = 0
    public init() {}
}

/// Why a server-initiated operation failed.
public enum GATTServerError: Error, Sendable, Hashable, CustomStringConvertible {
    case indicationTimeout(handle: UInt16)
    case indicationInProgress
    case closed

    public var description: String {
        switch self {
        case .indicationTimeout(let handle): "no confirmation for the indication of handle 0x\(String(handle, radix: 16))"
        case .indicationInProgress: "an indication is already waiting for its confirmation"
        case .closed: "the connection is closed"
        }
    }
}
