import CBlueZ

/// A controller registered with the kernel (`hciN`), as `HCIGETDEVINFO` reports it.
package struct HCIDeviceInfo: Sendable, Hashable, CustomStringConvertible {
    /// N in hciN: what `HCIUserChannelTransport(device:)` takes.
    package var index: Int
    /// The kernel's name for it, such as `hci0`.
    package var name: String
    /// The public address; all zeros until the controller has been initialised once.
    package var address: BluetoothAddress
    /// Whether the kernel's stack has it up (HCI_UP); the user channel needs it down.
    package var isUp: Bool

    package init(index: Int, name: String, address: BluetoothAddress, isUp: Bool) {
        self.index = index
        self.name = name
        self.address = address
        self.isUp = isUp
    }

    init(_ raw: cbluez_device_info) {
        let name = withUnsafeBytes(of: raw.name) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        self.init(
            index: Int(raw.index),
            name: name,
            address: BluetoothAddress(wire: raw.address),
            isUp: raw.is_up != 0
        )
    }

    package var description: String { "\(name) \(address) \(isUp ? "up" : "down")" }
}

/// The kernel's registry of controllers, for listing adapters and powering them.
package enum HCIDeviceList {
    /// Every controller the kernel knows. Throws `.bluetoothUnsupported` without AF_BLUETOOTH.
    package static func devices() throws(TransportError) -> [HCIDeviceInfo] {
        try HCISocket().devices()
    }

    /// One controller; throws `.noSuchDevice` if there is no hciN.
    package static func info(device: Int) throws(TransportError) -> HCIDeviceInfo {
        try HCISocket().deviceInfo(device: device)
    }

    /// Powers hciN down (needs CAP_NET_ADMIN).
    package static func bringDown(device: Int) throws(TransportError) {
        try HCISocket().bringDown(device: device)
    }

    /// Powers hciN up (needs CAP_NET_ADMIN).
    package static func bringUp(device: Int) throws(TransportError) {
        try HCISocket().bringUp(device: device)
    }
}
