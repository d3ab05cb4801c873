#if canImport(Glibc)
import Glibc
#endif

extension TransportError {
    /// Turns an errno from the kernel's HCI socket into an error that tells the user what to do.
    /// `call` names the failed operation for errors that have no more specific meaning.
    package static func hciSocket(errno code: Int32, call: String, device: Int) -> TransportError {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT, ESOCKTNOSUPPORT:
            // No bluetooth module: the address family (or its HCI protocol) is unknown.
            return .bluetoothUnsupported
        case EPERM, EACCES:
            return .permissionDenied(device: device)
        case EBUSY, EUSERS, EALREADY:
            // EBUSY: up, or still in setup; EUSERS: another user channel holds it.
            return .deviceBusy(device: device)
        case ENODEV:
            return .noSuchDevice(device: device)
        case ERFKILL:
            return .radioBlocked(device: device)
        default:
            return .systemCall(call: call, errno: code)
        }
    }
}
