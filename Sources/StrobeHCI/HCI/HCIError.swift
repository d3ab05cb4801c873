/// What went wrong between the host and its controller. Every case says which command, event or
/// field was involved, so that a log line is enough to understand it.
public enum HCIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A non-zero status in an event that is not a command's answer (a completion event, for
    /// example LE Connection Complete).
    case status(HCIStatus)
    /// The controller refused or failed this command: a non-zero status in its Command Complete
    /// or Command Status.
    case commandFailed(HCIOpcode, HCIStatus)
    /// The command was written and no Command Complete or Command Status came back within its
    /// deadline (`after`, counted from when it was queued).
    case commandTimeout(HCIOpcode, after: Duration)
    /// The command was never written: the controller granted no command credits
    /// (Num_HCI_Command_Packets stayed 0) for `after`.
    case noCommandCredits(HCIOpcode, after: Duration)
    /// An event or return parameters from the controller did not have the layout the spec
    /// gives: `packet` names it, `detail` says what was short or invalid.
    case malformed(packet: String, detail: String)
    /// The transport stopped: `nil` when the host closed the controller, otherwise the first
    /// cause, kept for everyone who waits or comes later.
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
    case connectionClosed(handle: ConnectionHandle)
    /// The controller gave no ACL buffer back within the deadline: `inFlight` of `total` buffers
    /// were still held by packets it never reported completed (Number Of Completed Packets).
    case noACLCredits(handle: ConnectionHandle, waited: Duration, inFlight: Int, total: Int)
    /// The controller does not support what was asked (its supported-commands bitmap says so).
    case unsupported(HCIOpcode)
    /// The controller runs one scan for every scanner on it, and the one others run, with the
    /// extended commands or the legacy ones and from `ownAddressType`, cannot also serve what
    /// this one asked for (the two kinds of command cannot be mixed; a scan has one own address).
    case scanConflict(extended: Bool, ownAddressType: LEOwnAddressType)

    /// A one-line message naming the command, event or field involved, for logs and users.
    public var description: String {
        switch self {
        case .status(let status):
            return status.description
        case .commandFailed(let opcode, let status):
            return "\(opcode) failed: \(status)"
        case .commandTimeout(let opcode, let after):
            return "no answer from the controller to \(opcode) within \(after.secondsText)"
        case .noCommandCredits(let opcode, let after):
            return "the controller granted no command credits for \(after.secondsText) (Num_HCI_Command_Packets stayed 0): \(opcode) was never sent"
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
            return "connection \(handle) closed"
        case .noACLCredits(let handle, let waited, let inFlight, let total):
            return "the controller returned no ACL buffers for \(waited.secondsText) (\(inFlight) of \(total) in flight, never reported completed); connection \(handle) cannot send"
        case .unsupported(let opcode):
            return "the controller does not support \(opcode)"
        case .scanConflict(let extended, let ownAddressType):
            return "cannot scan as asked: another scanner on this controller scans with the \(extended ? "extended" : "legacy") commands from own address type \(ownAddressType.rawValue)"
        }
    }
}

extension Duration {
    /// `2 s`, `0.5 s`, `30 ms`: for messages.
    public var secondsText: String {
        let milliseconds = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        return "\(Double(milliseconds) / 1000) s"
    }
}
