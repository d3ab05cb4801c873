import StrobeHCI

/// One advertising report as the controller gave it (an extended one with its fragments
/// joined): what kind of PDU it was and on which PHYs, before the scanner folds it into a
/// `DiscoveredDevice`.
package struct ScanReport: Sendable, Hashable {
    package var address: BluetoothAddress
    package var addressType: LEAddressType
    /// Sent with a legacy PDU (every LE Advertising Report is).
    package var legacy: Bool
    package var connectable: Bool
    package var scannable: Bool
    package var directed: Bool
    package var isScanResponse: Bool
    /// The controller gave up on the rest of the data (Data_Status 0b10).
    package var truncated: Bool
    /// Advertising_SID (0xFF: none, and for legacy PDUs).
    package var sid: UInt8
    package var primaryPHY: LEPHY
    /// `nil` when the PDU had no auxiliary packet.
    package var secondaryPHY: LEPHY?
    package var txPower: Int8?
    package var rssi: Int8?
    /// The address a directed extended PDU was aimed at (LE Advertising Report does not say).
    package var directAddress: BluetoothAddress?
    package var directAddressType: LEAddressType?
    package var data: [UInt8]

    package init(address: BluetoothAddress, addressType: LEAddressType, legacy: Bool = true, connectable: Bool,
                scannable: Bool, directed: Bool = false, isScanResponse: Bool = false, truncated: Bool = false,
                sid: UInt8 = 0xFF, primaryPHY: LEPHY = .le1M, secondaryPHY: LEPHY? = nil, txPower: Int8? = nil,
                rssi: Int8? = nil, data: [UInt8]) {
        self.address = address
        self.addressType = addressType
        self.legacy = legacy
        self.connectable = connectable
        self.scannable = scannable
        self.directed = directed
        self.isScanResponse = isScanResponse
        self.truncated = truncated
        self.sid = sid
        self.primaryPHY = primaryPHY
        self.secondaryPHY = secondaryPHY
        self.txPower = txPower
        self.rssi = rssi
        self.data = data
    }

    /// From an LE Advertising Report (legacy PDUs, LE 1M).
    package init(_ report: LEAdvertisingReport) {
        address = report.address
        addressType = report.addressType
        legacy = true
        let type = report.eventType
        connectable = type.isConnectable
        scannable = type == .advInd || type == .advScanInd
        directed = type == .advDirectInd
        isScanResponse = type.isScanResponse
        truncated = false
        sid = 0xFF
        primaryPHY = .le1M
        secondaryPHY = nil
        txPower = nil
        rssi = report.rssi
        data = report.data
    }

    /// From an LE Extended Advertising Report whose fragments made `data`.
    package init(_ report: LEExtendedAdvertisingReport, data: [UInt8]) {
        address = report.address
        addressType = report.addressType
        let type = report.eventType
        legacy = type.isLegacy
        connectable = type.isConnectable
        scannable = type.isScannable
        directed = type.isDirected
        isScanResponse = type.isScanResponse
        truncated = type.dataStatus == .incompleteTruncated
        sid = report.advertisingSID
        primaryPHY = report.primaryPHY
        secondaryPHY = report.secondaryPHY.rawValue == 0 ? nil : report.secondaryPHY
        txPower = report.txPower
        rssi = report.rssi
        if type.isDirected {
            directAddress = report.directAddress
            directAddressType = report.directAddressType
        }
        self.data = data
    }
}
