import StrobeDevices
import StrobeLights

// The device kits and the lights' BLE backend, made from the host that owns the controller:
// they connect through its central role, scan as clients of its one scan (beside the app's
// and each other's), pair with its security manager and wait on its clock.

extension NovaFlashManager {
    /// A manager for the Nova flashes around `host`, connecting through its central role.
    /// Call `enable()` to begin finding and connecting flashes (in `mode`).
    public convenience init(host: BluetoothHost, mode: AutoPairMode = .closest, configuration: Configuration = Configuration()) {
        self.init(central: host.central, clock: host.clock, mode: mode, configuration: configuration)
    }
}

extension GripManager {
    /// A manager for the camera grip on `host`: it bonds with its security manager (keys in the
    /// host's bond store) and reconnects the bonded grip on `start()`.
    public convenience init(host: BluetoothHost, configuration: Configuration = Configuration()) {
        self.init(central: host.central, configuration: configuration)
    }
}

extension StylusManager {
    /// A manager for the pressure styluses around `host`; each `start()` scans for
    /// `scanDuration` beside any other scan on the host.
    public convenience init(host: BluetoothHost, scanDuration: Duration = .seconds(1)) {
        self.init(central: host.central, scanDuration: scanDuration)
    }
}

extension LEDnetBackend {
    /// The LEDnet BLE lights around `host`, found by its scans and driven over its links.
    public convenience init(host: BluetoothHost, configuration: Configuration = Configuration()) {
        self.init(central: host.central, configuration: configuration)
    }
}
