import Strobe

/// Joins a scannable advertisement with the scan response that follows it, so that a scan
/// reports each advertisement once with all its data (what Pandora's Scan reports, and what
/// avatar reads manufacturer data from). With active scanning a scannable PDU is held until
/// its scan response comes; a new advertisement from the same advertiser first releases the
/// one held. Passive scans and PDUs that cannot be scanned are reported at once.
package struct ScanResponseMerger: Sendable {
    struct Key: Hashable, Sendable {
        var address: BluetoothAddress
        var type: LEAddressType
    }

    let active: Bool
    private var held: [Key: ScanReport] = [:]

    package init(active: Bool) { self.active = active }

    /// The reports to give out now, in order.
    package mutating func receive(_ report: ScanReport) -> [ScanReport] {
        let key = Key(address: report.address, type: report.addressType)
        if report.isScanResponse {
            guard var advertisement = held.removeValue(forKey: key) else { return [] }  // a response to nothing held
            advertisement.data += report.data
            advertisement.truncated = advertisement.truncated || report.truncated
            if let rssi = report.rssi { advertisement.rssi = rssi }
            return [advertisement]
        }
        var out: [ScanReport] = []
        if let earlier = held.removeValue(forKey: key) { out.append(earlier) }
        if active, report.scannable {
            held[key] = report
        } else {
            out.append(report)
        }
        return out
    }
}
