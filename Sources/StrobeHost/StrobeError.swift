import StrobeHCI

/// What the host throws (`BluetoothHost`, `Peer`, and beneath them `Central`, `LEConnection`,
/// `GATTClient`, `LEScanner`, `Peripheral`): one error for an app to catch, naming the layer that
/// failed and keeping that layer's own error, whose cases say what was wrong. (The kits and the
/// lights keep it as the cause of their own errors' `link` case.)
///
/// Two errors are equal when they are of the same layer and that layer's errors are equal; two
/// `other` errors when they are of the same type and say the same.
public enum StrobeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The link to the controller could not be opened, or failed (a socket, a serial line).
    case transport(TransportError)
    /// The controller refused a command, did not answer in time, or closed.
    case controller(HCIError)
    /// No connection (the device was not found, did not answer, or the controller refused), or
    /// new connection parameters or PHYs refused or not reported in time.
    case connection(ConnectionError)
    /// The peer answered an ATT request with an error (not permitted, not found, ...).
    case att(ATTError)
    /// The ATT bearer could not carry the request: closed, timed out, the answer malformed.
    case bearer(ATTBearerError)
    /// A GATT procedure the characteristic does not allow, or that the peer's answers broke.
    case gatt(GATTError)
    /// The peer's services lack what was asked for.
    case peer(PeerError)
    /// An L2CAP credit-based channel could not be opened, or its peer broke the channel's rules.
    case l2cap(L2CAPChannelError)
    /// Advertising data too long for the controller, or advertising not possible.
    case advertising(LEAdvertiserError)
    /// Pairing, encryption or the bond store failed.
    case security(SecurityError)
    /// The bond store cannot be read or written.
    case bondStore(BondStoreError)
    /// The calling task was cancelled.
    case cancelled
    /// An error of a layer below that has no case of its own here, kept as it was thrown.
    case other(any Error)

    /// Files `error` under its layer; a `StrobeError` stays as it is.
    public init(_ error: any Error) {
        switch error {
        case let error as StrobeError: self = error
        case let error as TransportError: self = .transport(error)
        case let error as HCIError:
            // The controller's transport failing, or closing because it failed, is the transport's error.
            switch error {
            case .transport(let cause), .closed(let cause?): self = .transport(cause)
            default: self = .controller(error)
            }
        case let error as ConnectionError: self = .connection(error)
        case let error as ATTError: self = .att(error)
        case let error as ATTBearerError: self = .bearer(error)
        case let error as GATTError: self = .gatt(error)
        case let error as PeerError: self = .peer(error)
        case let error as L2CAPChannelError: self = .l2cap(error)
        case let error as LEAdvertiserError: self = .advertising(error)
        case let error as SecurityError: self = .security(error)
        case let error as BondStoreError: self = .bondStore(error)
        case is CancellationError: self = .cancelled
        default: self = .other(error)
        }
    }

    /// Same layer, equal errors; `other` errors of the same type that say the same.
    public static func == (lhs: StrobeError, rhs: StrobeError) -> Bool {
        switch (lhs, rhs) {
        case let (.transport(a), .transport(b)): a == b
        case let (.controller(a), .controller(b)): a == b
        case let (.connection(a), .connection(b)): a == b
        case let (.att(a), .att(b)): a == b
        case let (.bearer(a), .bearer(b)): a == b
        case let (.gatt(a), .gatt(b)): a == b
        case let (.peer(a), .peer(b)): a == b
        case let (.l2cap(a), .l2cap(b)): a == b
        case let (.advertising(a), .advertising(b)): a == b
        case let (.security(a), .security(b)): a == b
        case let (.bondStore(a), .bondStore(b)): a == b
        case (.cancelled, .cancelled): true
        case let (.other(a), .other(b)): type(of: a) == type(of: b) && "\(a)" == "\(b)"
        default: false
        }
    }

    /// Hashes what `==` compares: the layer's error, or an `other` error's type and text.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .transport(let error): hasher.combine(error)
        case .controller(let error): hasher.combine(error)
        case .connection(let error): hasher.combine(error)
        case .att(let error): hasher.combine(error)
        case .bearer(let error): hasher.combine(error)
        case .gatt(let error): hasher.combine(error)
        case .peer(let error): hasher.combine(error)
        case .l2cap(let error): hasher.combine(error)
        case .advertising(let error): hasher.combine(error)
        case .security(let error): hasher.combine(error)
        case .bondStore(let error): hasher.combine(error)
        case .cancelled: hasher.combine(0)
        case .other(let error):
            hasher.combine(ObjectIdentifier(type(of: error)))
            hasher.combine("\(error)")
        }
    }

    /// The layer's own error, in its words.
    public var description: String {
        switch self {
        case .transport(let error): "\(error)"
        case .controller(let error): "\(error)"
        case .connection(let error): "\(error)"
        case .att(let error): "\(error)"
        case .bearer(let error): "\(error)"
        case .gatt(let error): "\(error)"
        case .peer(let error): "\(error)"
        case .l2cap(let error): "\(error)"
        case .advertising(let error): "\(error)"
        case .security(let error): "\(error)"
        case .bondStore(let error): "\(error)"
        case .cancelled: "cancelled"
        case .other(let error): "\(error)"
        }
    }
}
