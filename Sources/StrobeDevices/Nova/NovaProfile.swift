import StrobeHost

/// GATT identifiers of the Nova off-camera flash (16-bit UUIDs on the Bluetooth base UUID).
package enum NovaProfile {
    // V1 (Nova and its clones): ASCII requests.
    package static let v1Service: BluetoothUUID = "FFF0"
    /// Write with response.
    package static let v1Request: BluetoothUUID = "FFF3"
    /// Notify: acks.
    package static let v1Response: BluetoothUUID = "FFF4"

    // V2 (Nova Pro): binary requests.
    package static let v2Service: BluetoothUUID = "EFF0"
    /// Write with response.
    package static let v2Request: BluetoothUUID = "EFF1"
    /// Notify: acks and trigger-button presses.
    package static let v2Response: BluetoothUUID = "EFF2"
    /// Read/write: `NovaFlashDefaults`, 8 bytes.
    package static let v2FlashDefaults: BluetoothUUID = "EFF3"
    /// Read: `NovaCounters`, n x u32.
    package static let v2Counters: BluetoothUUID = "EFF4"

    package static let deviceInformationService: BluetoothUUID = "180A"
    /// Read by the reference SDK to tell flashes apart.
    package static let systemID: BluetoothUUID = "2A23"
    package static let batteryService: BluetoothUUID = "180F"
    package static let batteryLevel: BluetoothUUID = "2A19"

    /// Advertised local names of V1 flashes (the original and two compatible clones).
    package static let v1LocalNames: Set<String> = ["Nova", "Noon", "S-Power"]
    /// Advertised local names of V2 flashes.
    package static let v2LocalNames: Set<String> = ["Nova2"]

    /// The model an advertised local name announces, `nil` when it is not a Nova.
    package static func model(forLocalName name: String) -> NovaModel? {
        if v1LocalNames.contains(name) { return .v1 }
        if v2LocalNames.contains(name) { return .v2 }
        return nil
    }
}
