import StrobeHost

extension StrobeError {
    /// The layer this error is filed under, for tests that check the layer and not the case.
    var layer: String {
        switch self {
        case .transport: "transport"
        case .controller: "controller"
        case .connection: "connection"
        case .att: "att"
        case .bearer: "bearer"
        case .gatt: "gatt"
        case .peer: "peer"
        case .l2cap: "l2cap"
        case .advertising: "advertising"
        case .security: "security"
        case .bondStore: "bondStore"
        case .cancelled: "cancelled"
        case .other(let error): "other: \(type(of: error))"
        }
    }
}
