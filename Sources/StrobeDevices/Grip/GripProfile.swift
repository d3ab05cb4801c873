import StrobeHost

/// GATT identifiers of the camera grip reference profile v1 (shutter, dial, Fn, zoom lever).
public enum GripProfile {
    public static let service: BluetoothUUID = "1bca3448-91ca-4592-81d9-9c66d1261f0b"
    /// Notify: one or more `GripEventRecord`s per notification.
    public static let events: BluetoothUUID = "295cf013-0f19-4ab3-a196-7df2f19357b1"

    public static let deviceInformationService: BluetoothUUID = "180A"
    /// Read: UTF-8 version, e.g. `1.4.0`.
    public static let firmwareRevision: BluetoothUUID = "2A26"
    public static let batteryService: BluetoothUUID = "180F"
    /// Read, notify: `BatteryLevel`.
    public static let batteryLevel: BluetoothUUID = "2A19"

    /// Grips advertise a local name starting with this.
    public static let localNamePrefix = "Grip"
}
