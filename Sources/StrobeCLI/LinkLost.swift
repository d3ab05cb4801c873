import Strobe

/// A streaming command's link went down before its count or duration: the command fails with
/// the reason the controller gave and, when the link failed on this side, its first cause.
struct LinkLost: Error, CustomStringConvertible {
    var device: String
    var reason: HCIStatus
    var cause: ATTBearerCloseReason?

    /// `nil` while the link is up.
    init?(_ connection: LEConnection, device: String) {
        guard let reason = connection.disconnectReason else { return nil }
        self.device = device
        self.reason = reason
        cause = connection.closeReason
    }

    var description: String {
        "the link to the \(device) was lost: \(reason)" + (cause.map { " (\($0))" } ?? "")
    }
}
