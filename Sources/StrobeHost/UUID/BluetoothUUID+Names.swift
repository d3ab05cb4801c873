extension BluetoothUUID {
    /// The name the Bluetooth SIG assigned to this 16-bit UUID (`Battery`, `Battery Level`,
    /// `Client Characteristic Configuration`), or `nil` for unassigned and 128-bit UUIDs.
    public var name: String? {
        guard let uuid16 else { return nil }
        let table = Self.assignedNumbers
        var low = 0, high = table.count
        while low < high {
            let middle = (low + high) / 2
            if table[middle].uuid16 < uuid16 { low = middle + 1 } else { high = middle }
        }
        guard low < table.count, table[low].uuid16 == uuid16 else { return nil }
        return table[low].name.description
    }
}
