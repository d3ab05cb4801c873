/// What went wrong between the host and its controller. Every case says which command, event or
/// field was involved, so that a log line is enough to understand it.
public enum HCIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The controller refused or failed: a non-zero status in Command Complete, Command Status
    /// or a completion event.
    case status(HCIStatus)
    /// The controller did not answer this command within the timeout.
    case commandTimeout(HCIOpcode)
    /// An event or return parameters from the controller did not have the layout the spec
    /// gives: `packet` names it, `detail` says what was short or invalid.
    case malformed(packet: String, detail: String)
    /// The transport stopped: `nil` when the host closed the controller, otherwise why.
    case closed(TransportError?)
    /// The controller has not been opened yet.
    case notOpen
    /// `open()` was called on a controller that is already open.
    case alreadyOpen
    /// Writing to the transport failed.
    case transport(TransportError)
    /// An ACL payload longer than the controller's LE ACL data packet length.
    case aclPayloadTooLong(length: Int, maximum: Int)
    /// The connection went away while data for it waited for a controller buffer.
    case connectionClosed(handle: UInt16)
    /// The controller does not support what was asked (its supported-commands bitmap says so).
    case unsupported(HCIOpcode)

    public var description: String {
        switch self {
        case .status(let status):
            return status.description
        case .commandTimeout(let opcode):
            return "no answer from the controller to \(opcode)"
        case .malformed(let packet, let detail):
            return "malformed \(packet): \(detail)"
        case .closed(nil):
            return "the controller was closed"
        case .closed(let error?):
            return "the controller link ended: \(error)"
        case .notOpen:
            return "the controller is not open"
        case .alreadyOpen:
            return "the controller is already open"
        case .transport(let error):
            return "cannot write to the controller: \(error)"
        case .aclPayloadTooLong(let length, let maximum):
            return "ACL payload of \(length) bytes exceeds the controller's \(maximum)-byte buffers"
        case .connectionClosed(let handle):
            return "connection \(hex(handle)) closed"
        case .unsupported(let opcode):
            return "the controller does not support \(opcode)"
        }
    }
}
