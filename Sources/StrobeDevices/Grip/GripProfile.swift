import StrobeHost

/// GATT identifiers of the camera grip reference profile v1 (shutter, dial, Fn, zoom lever).
package enum GripProfile {
    package static let service: BluetoothUUID = "1bca3448-91ca-4592-81d9-9c66d1261f0b"
    /// Notify: one or more `GripEventRecord`s per notification.
    package static let events: BluetoothUUID = "295cf013-0f19-4ab3-a196-7df2f19357b1"

    package static let deviceInformationService: BluetoothUUID = "180A"
    /// Read: UTF-8 version, e.g. `1.4.0`.
    package static let firmwareRevision: BluetoothUUID = "2A26"
    package static let batteryService: BluetoothUUID = "180F"
    /// Read, notify: `BatteryLevel`.
    package static let batteryLevel: BluetoothUUID = "2A19"

    /// Grips advertise a local name starting with this.
    package static let localNamePrefix = "Grip"
}
