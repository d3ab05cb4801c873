#if canImport(Glibc)
import Glibc
#endif

/// Why a transport could not be opened or stopped working. Every case says what was wrong and,
/// where the user can do something about it, what to do.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// This kernel has no `AF_BLUETOOTH` support.
    case bluetoothUnsupported
    /// The HCI socket needs `CAP_NET_ADMIN`.
    case permissionDenied(device: Int)
    /// The device is up, or held by another user channel (typically bluetoothd).
    case deviceBusy(device: Int)
    /// There is no `hciN` with that index.
    case noSuchDevice(device: Int)
    /// A system call failed; `call` names it, `errno` says why.
    case systemCall(call: String, errno: Int32)
    /// Could not reach or open the endpoint (`tcp:`, `unix:`, `serial:` or a capture file).
    case cannotOpen(endpoint: String, reason: String)
    /// The peer closed the link.
    case closedByPeer
    /// The byte stream carried a packet type that H4 does not define at `offset` (bytes from the
    /// start of the stream): the stream lost its framing there.
    case unknownPacketType(UInt8, offset: UInt64)
    /// The header of the packet that starts at `offset` announced a length larger than the
    /// transport accepts: the stream lost its framing there (or the controller is broken).
    case oversizedPacket(type: HCIPacketType, length: Int, offset: UInt64)
    /// The stream ended in the middle of the packet that starts at `offset`.
    case truncatedPacket(type: HCIPacketType, offset: UInt64)
    /// A transport specification string could not be understood.
    case invalidSpecification(String)
    /// The transport was used before `start` or after `close`.
    case notOpen
    /// The adapter's radio is blocked by rfkill (a hardware switch or `rfkill block`).
    case radioBlocked(device: Int)
    /// The device was up and bringing it down for the user channel failed; `errno` says why.
    case cannotBringDown(device: Int, errno: Int32)
    /// A serial line speed that the termios table has no constant for.
    case unsupportedBaudRate(Int)
    /// A replayed capture has no more records: the replay is complete.
    case endOfCapture(records: Int)
    /// A replayed capture is malformed; `reason` names the record and what was wrong with it.
    case malformedCapture(reason: String)
    /// The controller stopped answering: the liveness probe (`probe`, a command, sent every
    /// `BluetoothHost.Configuration.livenessProbeInterval`) had no answer within the command
    /// timeout, `after`.
    case unresponsive(probe: String, after: Duration)

    /// A one-line message saying what went wrong and, where the user can fix it, how (a command to
    /// run, or another transport to use).
    public var description: String {
        switch self {
        case .bluetoothUnsupported:
            return "this kernel has no Bluetooth socket support (AF_BLUETOOTH); use --transport sim, tcp:HOST:PORT, unix:PATH or serial:DEV instead"
        case .permissionDenied(let device):
            return "permission denied opening hci\(device): the HCI user channel needs CAP_NET_ADMIN (run as root, or `setcap cap_net_admin+ep` on the strobe binary)"
        case .deviceBusy(let device):
            return "hci\(device) is busy: it is up or held by bluetoothd; stop bluetoothd (`systemctl stop bluetooth`) and bring the device down (`hciconfig hci\(device) down`)"
        case .noSuchDevice(let device):
            return "no such device hci\(device); list adapters with `ls /sys/class/bluetooth`"
        case .systemCall(let call, let errno):
            return "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
        case .cannotOpen(let endpoint, let reason):
            return "cannot open \(endpoint): \(reason)"
        case .closedByPeer:
            return "the controller closed the link"
        case .unknownPacketType(let type, let offset):
            return "the H4 stream lost its framing at byte \(offset): 0x\(type.hex) is no H4 packet type"
        case .oversizedPacket(let type, let length, let offset):
            return "the H4 stream lost its framing at byte \(offset): \(type.article) \(type.acronym) packet announces \(length) bytes, more than the transport accepts"
        case .truncatedPacket(let type, let offset):
            return "the stream ended inside \(type.article) \(type.acronym) packet begun at byte \(offset)"
        case .invalidSpecification(let text):
            return "invalid transport: \(text)"
        case .notOpen:
            return "the transport is not open"
        case .radioBlocked(let device):
            return "hci\(device) is blocked by rfkill; unblock it with `rfkill unblock bluetooth` (or flip the hardware radio switch)"
        case .cannotBringDown(let device, let errno):
            return "hci\(device) is up and could not be brought down for exclusive use: \(String(cString: strerror(errno))) (errno \(errno)); try `hciconfig hci\(device) down`, or stop bluetoothd (`systemctl stop bluetooth`)"
        case .unsupportedBaudRate(let rate):
            return "unsupported baud rate \(rate); use one of \(SerialBaudRate.supported.map(String.init).joined(separator: ", "))"
        case .endOfCapture(let records):
            return "end of capture: all \(records) records replayed"
        case .malformedCapture(let reason):
            return "malformed capture: \(reason)"
        case .unresponsive(let probe, let after):
            return "the controller stopped answering: no answer to \(probe) within \(after.secondsText)"
        }
    }
}

extension HCIPacketType {
    /// The name as the specification writes it.
    var acronym: String {
        switch self {
        case .command, .event: description
        case .acl, .sco, .iso: description.uppercased()
        }
    }

    var article: String { self == .event || self == .acl || self == .iso ? "an" : "a" }
}

extension UInt8 {
    /// Two hex digits, upper case.
    var hex: String { (self < 0x10 ? "0" : "") + String(self, radix: 16, uppercase: true) }
}
