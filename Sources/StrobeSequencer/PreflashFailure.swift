import StrobeDevices
import StrobeHCI

/// A flash whose preflash failed at a half press, and why.
public struct PreflashFailure: Sendable, Hashable {
    /// The flash's address.
    public var address: BluetoothAddress
    /// Why: its defaults could not be read, or it did not take the command.
    public var error: NovaError
}
