/// The reference SDK's signal strength for users: `clamp(0...5, 9 + rssi / 10) / 5`, from 0
/// (weakest) to 1 (strongest); -40 dBm and above is full strength, -90 dBm and below none.
package enum NovaSignalStrength {
    /// HCI's "RSSI not available" value.
    package static let rssiNotAvailable: Int8 = 127

    /// The strength for an RSSI in dBm: 0.0 at -90 dBm and below, 1.0 at -40 dBm and above, linear
    /// in between; 0.0 when the RSSI is not available (127).
    package static func fraction(rssi: Int8) -> Double {
        guard rssi != rssiNotAvailable else { return 0 }
        return min(max(9 + Double(rssi) / 10, 0), 5) / 5
    }
}
