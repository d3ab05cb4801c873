/// GATT procedure failures that are not ATT's (`ATTError`, `ATTBearerError`), a client's or a server's.
public enum GATTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server's answer breaks GATT's rules (a bad declaration, handles going backwards).
    case invalidResponse(ATTOpcode, reason: String)
    /// A value longer than an attribute can be (512 bytes, Vol 3, Part F, 3.2.9).
    case valueTooLong(length: Int, limit: Int)
    /// Write Command carries at most ATT_MTU - 3 bytes and has no long form.
    case valueTooLongForWriteCommand(length: Int, limit: Int)
    /// A Prepare Write Response did not echo its request; the queue was cancelled.
    case preparedWriteMismatch(handle: AttributeHandle, offset: UInt16)
    /// Another long write is using the server's prepare queue on this connection.
    case longWriteInProgress
    /// The characteristic does not have the property the procedure needs.
    case propertyNotSupported(GATTCharacteristicProperties, valueHandle: AttributeHandle)
    /// The characteristic has no Client Characteristic Configuration descriptor.
    case noClientCharacteristicConfiguration(valueHandle: AttributeHandle)
    /// Read Multiple takes at least two handles.
    case tooFewHandles(Int)
    /// Server: no Handle Value Confirmation came for the indication of `handle` within the
    /// indication timeout (30 s by default).
    case indicationTimeout(handle: AttributeHandle)
    /// Server: an earlier indication is still waiting for its confirmation: only one may be outstanding.
    case indicationInProgress
    /// Server: the connection was closed before or while the operation ran.
    case closed

    /// A one-line explanation for logs, e.g. `a long write is already in progress`.
    public var description: String {
        switch self {
        case .invalidResponse(let opcode, let reason): "invalid \(opcode): \(reason)"
        case .valueTooLong(let length, let limit): "value of \(length) bytes exceeds \(limit)"
        case .valueTooLongForWriteCommand(let length, let limit): "Write Command value of \(length) bytes exceeds \(limit)"
        case .preparedWriteMismatch(let handle, let offset):
            "Prepare Write Response for handle \(handle) offset \(offset) does not match the request"
        case .longWriteInProgress: "a long write is already in progress"
        case .propertyNotSupported(let property, let handle):
            "characteristic \(handle) lacks property 0x\(String(property.rawValue, radix: 16))"
        case .noClientCharacteristicConfiguration(let handle): "characteristic \(handle) has no CCCD"
        case .tooFewHandles(let count): "Read Multiple needs two or more handles, got \(count)"
        case .indicationTimeout(let handle): "no confirmation for the indication of handle \(handle)"
        case .indicationInProgress: "an indication is already waiting for its confirmation"
        case .closed: "the connection is closed"
        }
    }
}
