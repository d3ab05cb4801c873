import StrobeHost

/// What went wrong with a light operation that is not one light's result: a bad selector, a
/// target that has no scene, or a backend's own failure (the LIFX LAN socket, the LIFX HTTP API,
/// a message or state a light sent malformed, the Bluetooth link under the LEDnet backend).
public enum LightsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Text that is no selector (see `LightSelector`).
    case badSelector(String)
    /// `restoreState` on a target that is not a scene.
    case notASceneTarget(LightSelector)
    /// A scene id the client does not know (not in the last `fetch()`).
    case noSuchScene(String)
    /// No known light matches the selector; nothing was sent.
    case noLights(LightSelector)
    /// A value outside what lights accept (brightness 0...1, kelvin 1500...9000, ...).
    case badValue(String)
    /// The local scenes file could not be read or written.
    case scenesFile(path: String, reason: String)
    /// A LIFX LAN message that is not one: short, of another protocol, or with a value out of range.
    case malformedLIFXMessage(String)
    /// The LIFX LAN backend's UDP socket failed: the call and its errno.
    case socket(call: String, errno: Int32)
    /// A LIFX LAN discovery or light host that is no IPv4 address.
    case badAddress(String)
    /// An LEDnet light's state notification that is no state frame.
    case malformedLEDnetState(String)
    /// The peer at `address` has no LEDnet write and notify characteristics; `services` lists
    /// the UUIDs of the services it has.
    case notALight(address: String, services: [String])
    /// The LIFX HTTP API answered with an error status (400 bad request, 401 token refused, 403
    /// token may not do this, 404 nothing matched, 422 body refused, 5xx failed); `message` is
    /// its error text, the token removed.
    case http(status: Int, message: String)
    /// The LIFX HTTP API's rate limit (429): when it resets (epoch seconds) and how many requests
    /// a window allows, when it said.
    case rateLimited(resetAt: Int?, limit: Int?)
    /// The LIFX HTTP API answered in a shape the backend does not know.
    case badResponse(String)
    /// No answer from the LIFX HTTP API (connection, TLS or timeout), the token removed.
    case unreachable(String)
    /// The Bluetooth link under the LEDnet backend failed: no connection, a GATT request refused
    /// or unanswered, the controller gone. The host's error says which layer and why.
    case link(StrobeError)
    /// The calling task was cancelled.
    case cancelled

    /// Files an error thrown inside a backend: its own errors as they are, a cancellation as
    /// `cancelled`, the rest (the Bluetooth host's) as `link`.
    package init(filing error: any Error) {
        switch error {
        case let error as LightsError: self = error
        default:
            // Cancelled is cancelled, whether the task or the host underneath noticed it.
            let host = StrobeError(error)
            self = host == .cancelled ? .cancelled : .link(host)
        }
    }

    /// What went wrong, as a sentence for a user.
    public var description: String {
        switch self {
        case .badSelector(let text):
            "'\(text)' is no selector (all, id:ID, group_id:ID, location_id:ID, scene_id:UUID or label:LABEL)"
        case .notASceneTarget(let selector): "\(selector) is not a scene: only scene targets can be restored"
        case .noSuchScene(let name): "no scene '\(name)'"
        case .noLights(let selector): "no light matches \(selector)"
        case .badValue(let reason): reason
        case .scenesFile(let path, let reason): "cannot use the scenes file \(path): \(reason)"
        case .malformedLIFXMessage(let reason): "malformed LIFX message: \(reason)"
        case .socket(let call, let errno): "the UDP socket failed: \(call) (errno \(errno))"
        case .badAddress(let text): "'\(text)' is no IPv4 address"
        case .malformedLEDnetState(let reason): "malformed LEDnet state: \(reason)"
        case .notALight(let address, let services):
            "\(address) has no LEDnet write and notify characteristics (services: \(services.joined(separator: ", ")))"
        case .http(let status, let message):
            switch status {
            case 400: "the LIFX API refused the request (400): \(message)"
            case 401: "the LIFX API refused the token (401): \(message)"
            case 403: "the token may not do this (403): \(message)"
            case 404: "nothing matched (404): \(message)"
            case 422: "the LIFX API refused the body (422): \(message)"
            default: "the LIFX API failed (\(status)): \(message)"
            }
        case .rateLimited(let resetAt, let limit):
            "rate limited (429)" + (limit.map { ", \($0) requests per window" } ?? "") + (resetAt.map { ", resets at \($0) (epoch seconds)" } ?? "")
        case .badResponse(let reason): "the LIFX API answered in an unexpected shape: \(reason)"
        case .unreachable(let reason): "no answer from the LIFX API: \(reason)"
        case .link(let error): "\(error)"
        case .cancelled: "cancelled"
        }
    }
}
