import StrobeHost

/// How LEDnet ("Triones") lights look on the air: their advertised names and the characteristic
/// pairs they use (a light has one write and one notify characteristic of these).
package enum LEDnetProfile {
    package static let namePrefixes = ["Triones", "LEDBLE-", "LEDBlue-", "QHM-", "Dream~"]
    package static let writeCharacteristics: [BluetoothUUID] = ([0xFF01, 0xFFD5, 0xFFD9, 0xFFE9, 0xFFE5] as [UInt16]).map { BluetoothUUID(UInt16($0)) }
    package static let notifyCharacteristics: [BluetoothUUID] = ([0xFF02, 0xFFD0, 0xFFD4, 0xFFE0, 0xFFE4] as [UInt16]).map { BluetoothUUID(UInt16($0)) }
    /// Triones' own layout: service 0xFFD5 with write 0xFFD9, service 0xFFD0 with notify 0xFFD4.
    package static let trionesWriteService = BluetoothUUID(0xFFD5)
    package static let trionesWrite = BluetoothUUID(0xFFD9)
    package static let trionesNotifyService = BluetoothUUID(0xFFD0)
    package static let trionesNotify = BluetoothUUID(0xFFD4)

    package static func isLight(name: String?) -> Bool {
        guard let name else { return false }
        return namePrefixes.contains { name.hasPrefix($0) }
    }
}
