/// Which way a packet crossed the host controller interface.
public enum BtsnoopDirection: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Sent by the host: commands and outgoing data.
    case hostToController
    /// Received by the host: events and incoming data.
    case controllerToHost

    /// `host->controller` or `controller->host`, for logs.
    public var description: String {
        switch self {
        case .hostToController: "host->controller"
        case .controllerToHost: "controller->host"
        }
    }
}
