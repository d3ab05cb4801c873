import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// An in-memory attribute database that answers ATT requests the way a GATT server does
/// (Vol 3, Part F, 3.4 and Part G, 3), written from the spec independently of the client.
/// Hooks let a test hold, drop or rewrite responses.
final class TestGATTServer: Sendable {
    struct Attribute {
        var handle: AttributeHandle
        var type: BluetoothUUID
        var value: [UInt8]
        var readable = true
        var writable = false
        /// For an include declaration: the start handle of the included service, whose range
        /// and UUID are filled in when read.
        var includes: AttributeHandle?
    }

    struct State {
        var attributes: [Attribute] = []
        var rxMTU = 517
        var mtu = 23
        var prepareQueue: [(handle: AttributeHandle, offset: UInt16, value: [UInt8])] = []
        var requests: [ATTOpcode] = []
        var writes: [(opcode: ATTOpcode, handle: AttributeHandle, value: [UInt8])] = []
        var confirmations = 0
        var dropped: Set<UInt8> = []
        var holding = false
        var held: [[UInt8]] = []
        var rewrite: (@Sendable (_ request: [UInt8], _ response: [UInt8]) -> [UInt8])?
        var attributeNotLongOnShortBlob = false
    }

    let state = Lock(State())
    private let client = Lock<(@Sendable ([UInt8]) -> Void)?>(nil)

    init(rxMTU: Int = 517) { state.withLock { $0.rxMTU = rxMTU } }

    /// Where responses and server-initiated PDUs go (the bearer's receive).
    func connect(_ deliver: @escaping @Sendable ([UInt8]) -> Void) { client.withLock { $0 = deliver } }

    // MARK: Building the database

    private var nextHandle: AttributeHandle { state.withLock { ($0.attributes.last?.handle ?? .reserved).advanced(by: 1) } }

    @discardableResult
    func add(_ type: BluetoothUUID, value: [UInt8], readable: Bool = true, writable: Bool = false, at handle: AttributeHandle? = nil) -> AttributeHandle {
        state.withLock { state in
            let handle = handle ?? (state.attributes.last?.handle ?? .reserved).advanced(by: 1)
            state.attributes.append(Attribute(handle: handle, type: type, value: value, readable: readable, writable: writable))
            state.attributes.sort { $0.handle < $1.handle }
            return handle
        }
    }

    @discardableResult
    func addService(_ uuid: BluetoothUUID, primary: Bool = true, at handle: AttributeHandle? = nil) -> AttributeHandle {
        add(primary ? .primaryService : .secondaryService, value: uuid.attBytes, at: handle)
    }

    @discardableResult
    func addInclude(serviceAt start: AttributeHandle) -> AttributeHandle {
        let handle = add(.include, value: [])
        state.withLock { state in
            if let index = state.attributes.firstIndex(where: { $0.handle == handle }) { state.attributes[index].includes = start }
        }
        return handle
    }

    /// Adds a declaration, a value and, for notify or indicate, a CCCD. Returns the value handle.
    @discardableResult
    func addCharacteristic(
        _ uuid: BluetoothUUID, properties: GATTCharacteristicProperties, value: [UInt8] = [], writable: Bool = true
    ) -> AttributeHandle {
        let valueHandle = nextHandle.advanced(by: 1)
        var declaration: [UInt8] = [properties.rawValue, UInt8(valueHandle.rawValue & 0xFF), UInt8(valueHandle.rawValue >> 8)]
        declaration += uuid.attBytes
        add(.characteristic, value: declaration)
        add(uuid, value: value, readable: properties.contains(.read), writable: writable)
        if !properties.isDisjoint(with: [.notify, .indicate]) {
            add(.clientCharacteristicConfiguration, value: [0, 0], writable: true)
        }
        return valueHandle
    }

    func value(at handle: AttributeHandle) -> [UInt8]? {
        state.withLock { state in state.attributes.first { $0.handle == handle }?.value }
    }

    func setValue(_ value: [UInt8], at handle: AttributeHandle) {
        state.withLock { state in
            if let index = state.attributes.firstIndex(where: { $0.handle == handle }) { state.attributes[index].value = value }
        }
    }

    func removeAttributes(in range: ClosedRange<AttributeHandle>) {
        state.withLock { $0.attributes.removeAll { range.contains($0.handle) } }
    }

    // MARK: Observing and steering

    var requests: [ATTOpcode] { state.withLock { $0.requests } }
    func count(_ opcode: ATTOpcode) -> Int { requests.filter { $0 == opcode }.count }
    var writes: [(opcode: ATTOpcode, handle: AttributeHandle, value: [UInt8])] { state.withLock { $0.writes } }
    var confirmations: Int { state.withLock { $0.confirmations } }
    var mtu: Int { state.withLock { $0.mtu } }

    /// Requests of this opcode get no response at all.
    func drop(_ opcode: ATTOpcode) { _ = state.withLock { $0.dropped.insert(opcode.rawValue) } }
    /// Responses wait until `releaseHeld()`.
    func hold() { state.withLock { $0.holding = true } }
    var heldCount: Int { state.withLock { $0.held.count } }
    func releaseHeld() {
        let held = state.withLock { state in
            defer {
                state.held = []
                state.holding = false
            }
            return state.held
        }
        for pdu in held { deliver(pdu) }
    }

    func rewriteResponses(_ body: (@Sendable (_ request: [UInt8], _ response: [UInt8]) -> [UInt8])?) {
        state.withLock { $0.rewrite = body }
    }

    func answerAttributeNotLongOnShortBlobs() { state.withLock { $0.attributeNotLongOnShortBlob = true } }

    func deliver(_ pdu: [UInt8]) { client.withLock { $0 }?(pdu) }

    func notify(_ handle: AttributeHandle, _ value: [UInt8]) { deliver(ATTHandleValueNotification(handle: handle, value: value).encoded()) }
    func indicate(_ handle: AttributeHandle, _ value: [UInt8]) { deliver(ATTHandleValueIndication(handle: handle, value: value).encoded()) }

    // MARK: Answering

    /// Called with every PDU the client sends.
    func receive(_ pdu: [UInt8]) {
        guard let first = pdu.first else { return }
        let opcode = ATTOpcode(rawValue: first)
        let outcome = state.withLock { state -> (response: [UInt8]?, hold: Bool) in
            state.requests.append(opcode)
            guard !state.dropped.contains(first) else { return (nil, false) }
            var response = Self.answer(opcode, pdu, &state)
            if let rewrite = state.rewrite, let original = response { response = rewrite(pdu, original) }
            if state.holding, let response {
                state.held.append(response)
                return (nil, true)
            }
            return (response, false)
        }
        if let response = outcome.response { deliver(response) }
    }

    private static func error(_ opcode: ATTOpcode, _ handle: AttributeHandle, _ code: ATTErrorCode) -> [UInt8] {
        ATTErrorResponse(requestOpcode: opcode, handle: handle, error: code).encoded()
    }

    private static func groupEnd(of handle: AttributeHandle, _ state: State) -> AttributeHandle {
        let next = state.attributes.first {
            $0.handle > handle && ($0.type == .primaryService || $0.type == .secondaryService)
        }
        return next.map { $0.handle.advanced(by: -1) } ?? (state.attributes.last?.handle ?? handle)
    }

    private static func readValue(_ attribute: Attribute, _ state: State) -> [UInt8] {
        guard let start = attribute.includes else { return attribute.value }
        var value = [UInt8(start.rawValue & 0xFF), UInt8(start.rawValue >> 8)]
        let end = groupEnd(of: start, state)
        value += [UInt8(end.rawValue & 0xFF), UInt8(end.rawValue >> 8)]
        if let service = state.attributes.first(where: { $0.handle == start }), service.value.count == 2 {
            value += service.value
        }
        return value
    }

    private static func answer(_ opcode: ATTOpcode, _ pdu: [UInt8], _ state: inout State) -> [UInt8]? {
        do throws(ATTDecodingError) {
            switch opcode {
            case .exchangeMTURequest:
                let request = try ATTExchangeMTURequest(pdu: pdu)
                state.mtu = max(23, min(Int(request.clientRxMTU), state.rxMTU))
                return ATTExchangeMTUResponse(serverRxMTU: UInt16(state.rxMTU)).encoded()

            case .findInformationRequest:
                let request = try ATTFindInformationRequest(pdu: pdu)
                guard request.startingHandle != 0, request.startingHandle <= request.endingHandle else {
                    return error(opcode, request.startingHandle, .invalidHandle)
                }
                let found = state.attributes.filter { (request.startingHandle...request.endingHandle).contains($0.handle) }
                guard let first = found.first else { return error(opcode, request.startingHandle, .attributeNotFound) }
                let size = first.type.attEncodedCount
                let fit = (state.mtu - 2) / (2 + size)
                let entries = found.prefix { $0.type.attEncodedCount == size }.prefix(fit)
                return ATTFindInformationResponse(entries: entries.map { ATTHandleUUID(handle: $0.handle, uuid: $0.type) }).encoded()

            case .findByTypeValueRequest:
                let request = try ATTFindByTypeValueRequest(pdu: pdu)
                guard request.startingHandle != 0, request.startingHandle <= request.endingHandle else {
                    return error(opcode, request.startingHandle, .invalidHandle)
                }
                let type = BluetoothUUID(request.attributeType)
                let found = state.attributes.filter {
                    (request.startingHandle...request.endingHandle).contains($0.handle) && $0.type == type && $0.value == request.attributeValue
                }
                guard !found.isEmpty else { return error(opcode, request.startingHandle, .attributeNotFound) }
                let grouping = type == .primaryService || type == .secondaryService
                let handles = found.prefix((state.mtu - 1) / 4).map { attribute in
                    ATTHandlesInformation(
                        foundAttributeHandle: attribute.handle,
                        groupEndHandle: grouping ? groupEnd(of: attribute.handle, state) : attribute.handle)
                }
                return ATTFindByTypeValueResponse(handles: handles).encoded()

            case .readByTypeRequest:
                let request = try ATTReadByTypeRequest(pdu: pdu)
                guard request.startingHandle != 0, request.startingHandle <= request.endingHandle else {
                    return error(opcode, request.startingHandle, .invalidHandle)
                }
                let found = state.attributes.filter {
                    (request.startingHandle...request.endingHandle).contains($0.handle) && $0.type == request.attributeType
                }
                guard let first = found.first else { return error(opcode, request.startingHandle, .attributeNotFound) }
                guard first.readable else { return error(opcode, first.handle, .readNotPermitted) }
                let length = min(readValue(first, state).count, state.mtu - 4, 253)
                var entries: [ATTHandleValue] = []
                for attribute in found where attribute.readable {
                    let value = readValue(attribute, state)
                    guard min(value.count, state.mtu - 4, 253) == length, entries.count < (state.mtu - 2) / (length + 2) else { break }
                    entries.append(ATTHandleValue(handle: attribute.handle, value: Array(value.prefix(length))))
                }
                return ATTReadByTypeResponse(entries: entries).encoded()

            case .readRequest:
                let request = try ATTReadRequest(pdu: pdu)
                guard let attribute = state.attributes.first(where: { $0.handle == request.handle }) else {
                    return error(opcode, request.handle, .invalidHandle)
                }
                guard attribute.readable else { return error(opcode, request.handle, .readNotPermitted) }
                return ATTReadResponse(value: Array(readValue(attribute, state).prefix(state.mtu - 1))).encoded()

            case .readBlobRequest:
                let request = try ATTReadBlobRequest(pdu: pdu)
                guard let attribute = state.attributes.first(where: { $0.handle == request.handle }) else {
                    return error(opcode, request.handle, .invalidHandle)
                }
                guard attribute.readable else { return error(opcode, request.handle, .readNotPermitted) }
                let value = readValue(attribute, state)
                if state.attributeNotLongOnShortBlob, value.count <= state.mtu - 1 {
                    return error(opcode, request.handle, .attributeNotLong)
                }
                guard Int(request.offset) <= value.count else { return error(opcode, request.handle, .invalidOffset) }
                return ATTReadBlobResponse(value: Array(value[Int(request.offset)...].prefix(state.mtu - 1))).encoded()

            case .readMultipleRequest:
                let request = try ATTReadMultipleRequest(pdu: pdu)
                var values: [UInt8] = []
                for handle in request.handles {
                    guard let attribute = state.attributes.first(where: { $0.handle == handle }) else {
                        return error(opcode, handle, .invalidHandle)
                    }
                    values += readValue(attribute, state)
                }
                return ATTReadMultipleResponse(values: Array(values.prefix(state.mtu - 1))).encoded()

            case .readByGroupTypeRequest:
                let request = try ATTReadByGroupTypeRequest(pdu: pdu)
                guard request.startingHandle != 0, request.startingHandle <= request.endingHandle else {
                    return error(opcode, request.startingHandle, .invalidHandle)
                }
                guard request.attributeGroupType == .primaryService || request.attributeGroupType == .secondaryService else {
                    return error(opcode, request.startingHandle, .unsupportedGroupType)
                }
                let found = state.attributes.filter {
                    (request.startingHandle...request.endingHandle).contains($0.handle) && $0.type == request.attributeGroupType
                }
                guard let first = found.first else { return error(opcode, request.startingHandle, .attributeNotFound) }
                let length = first.value.count
                let entries = found.prefix { $0.value.count == length }.prefix((state.mtu - 2) / (length + 4)).map {
                    ATTGroupData(handle: $0.handle, endGroupHandle: groupEnd(of: $0.handle, state), value: $0.value)
                }
                return ATTReadByGroupTypeResponse(entries: entries).encoded()

            case .writeRequest, .writeCommand:
                let (handle, value) = try decodeWrite(opcode, pdu)
                state.writes.append((opcode, handle, value))
                guard let index = state.attributes.firstIndex(where: { $0.handle == handle }) else {
                    return opcode == .writeRequest ? error(opcode, handle, .invalidHandle) : nil
                }
                guard state.attributes[index].writable else {
                    return opcode == .writeRequest ? error(opcode, handle, .writeNotPermitted) : nil
                }
                state.attributes[index].value = value
                return opcode == .writeRequest ? ATTWriteResponse().encoded() : nil

            case .prepareWriteRequest:
                let request = try ATTPrepareWriteRequest(pdu: pdu)
                guard state.attributes.contains(where: { $0.handle == request.handle && $0.writable }) else {
                    return error(opcode, request.handle, .writeNotPermitted)
                }
                state.prepareQueue.append((request.handle, request.offset, request.value))
                return ATTPrepareWriteResponse(handle: request.handle, offset: request.offset, value: request.value).encoded()

            case .executeWriteRequest:
                let request = try ATTExecuteWriteRequest(pdu: pdu)
                defer { state.prepareQueue = [] }
                if request.flags == .write {
                    var staged = state.attributes
                    for piece in state.prepareQueue {
                        guard let index = staged.firstIndex(where: { $0.handle == piece.handle }) else {
                            return error(opcode, piece.handle, .invalidHandle)
                        }
                        let offset = Int(piece.offset)
                        guard offset <= staged[index].value.count else { return error(opcode, piece.handle, .invalidOffset) }
                        var value = Array(staged[index].value.prefix(offset))
                        value += piece.value
                        staged[index].value = value
                        state.writes.append((opcode, piece.handle, piece.value))
                    }
                    state.attributes = staged
                }
                return ATTExecuteWriteResponse().encoded()

            case .handleValueConfirmation:
                state.confirmations += 1
                return nil

            default:
                // Commands and what a client sends back (responses) get no answer.
                if opcode.isCommand || (opcode.rawValue & 1 == 1 && opcode.rawValue <= 0x21) { return nil }
                return error(opcode, 0, .requestNotSupported)
            }
        } catch {
            return Self.error(opcode, 0, .invalidPDU)
        }
    }

    private static func decodeWrite(_ opcode: ATTOpcode, _ pdu: [UInt8]) throws(ATTDecodingError) -> (AttributeHandle, [UInt8]) {
        if opcode == .writeCommand {
            let command = try ATTWriteCommand(pdu: pdu)
            return (command.handle, command.value)
        }
        let request = try ATTWriteRequest(pdu: pdu)
        return (request.handle, request.value)
    }
}
