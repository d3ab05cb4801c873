import StrobeHCI
import StrobeSecurity

/// The user's part in pairing. Without a delegate a host pairs Just Works only (IO capability
/// NoInputNoOutput). Every answer is awaited under the 30 s SMP timer.
public protocol PairingDelegate: Sendable {
    /// What this device can show and take from its user.
    var ioCapability: SMPIOCapability { get }
    /// A peer asks to pair (this host is the peripheral). Default: yes.
    func acceptPairing(with peer: BluetoothAddress) async -> Bool
    /// Both devices show `number`: does the user say they match?
    func confirmNumber(_ number: UInt32, with peer: BluetoothAddress) async -> Bool
    /// Whether a Just Works pairing (LE Secure Connections) waits for `confirmJustWorks`, at
    /// the step where Numeric Comparison shows its number. Default: no.
    var confirmsJustWorks: Bool { get }
    /// May this Just Works pairing go on? A no ends it (Pairing Failed, Numeric Comparison
    /// Failed). Asked only when `confirmsJustWorks`. Default: yes.
    func confirmJustWorks(with peer: BluetoothAddress) async -> Bool
    /// Show `passkey` (six digits) for the user to type on the peer.
    func displayPasskey(_ passkey: UInt32, to peer: BluetoothAddress) async
    /// The passkey the peer shows, as the user typed it; `nil` to give up.
    func enterPasskey(for peer: BluetoothAddress) async -> UInt32?
    /// A new pairing would replace `existing` with a bond that is weaker, or that a private
    /// address claimed with another IRK (`reason` says which): a peer that lost its keys, or one
    /// pretending to be that peer. Default: no; the stored bond is kept, the link ended and the
    /// pairing reports `StrobeError.security(.bondReplacementRefused)`.
    func replaceBond(_ existing: Bond, with new: Bond, reason: String) async -> Bool
}

extension PairingDelegate {
    /// Accepts every peer that asks to pair.
    public func acceptPairing(with peer: BluetoothAddress) async -> Bool { true }
    /// Just Works pairings go on without asking.
    public var confirmsJustWorks: Bool { false }
    /// Lets every Just Works pairing go on.
    public func confirmJustWorks(with peer: BluetoothAddress) async -> Bool { true }
    /// Keeps the stored bond: the replacement is refused.
    public func replaceBond(_ existing: Bond, with new: Bond, reason: String) async -> Bool { false }
}
