import StrobeHost

/// GATT identifiers of the pressure stylus reference profile v1.
package enum StylusProfile {
    package static let service: BluetoothUUID = "d6a4c9f9-d388-415c-897b-ca91b1c47e00"
    /// Notify: one `StylusBatchView` per notification.
    package static let samples: BluetoothUUID = "bb9cc9a6-d070-4360-824d-a775f24c677e"
    /// Read, write: `StylusButtonMap`.
    package static let buttonMap: BluetoothUUID = "3d8353ef-5ddb-486d-acc4-4117a00e14fd"
    /// Read, on pens that also stream over an LE credit-based channel: its SPSM, u16
    /// little-endian. Each SDU on the channel is one batch, as a Samples notification carries.
    package static let samplesPSM: BluetoothUUID = "bb9cc9a7-d070-4360-824d-a775f24c677e"
    /// What the app's end of that channel receives: a batch of up to 56 samples in one SDU,
    /// K-frames that fit one LE ACL packet of 251 bytes.
    package static let channelParameters = L2CAPChannelParameters(mtu: 512, mps: 247, initialCredits: 16)

    package static let deviceInformationService: BluetoothUUID = "180A"
    /// Read: the pen's identifier.
    package static let serialNumber: BluetoothUUID = "2A25"
    package static let batteryService: BluetoothUUID = "180F"
    /// Read, notify: `BatteryLevel`.
    package static let batteryLevel: BluetoothUUID = "2A19"

    /// Pens advertise a local name starting with this.
    package static let localNamePrefix = "Pen"
}
