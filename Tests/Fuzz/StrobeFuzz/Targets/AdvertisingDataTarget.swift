import StrobeHCI
import StrobeHost

extension FuzzTarget {
    /// Advertising data and scan responses (Core Supplement Part A): the structures and every
    /// typed field the scanner reads from them.
    static let advertisingData = FuzzTarget(
        name: "advertising-data", summary: "advertising data structures and their typed fields",
        run: { input in
            guard let data = try? AdvertisingData(parsing: input) else { return }
            _ = data.flags
            _ = data.localName
            _ = data.serviceUUIDs
            _ = data.manufacturerData
            _ = data.serviceData
            _ = data.txPowerLevel
            _ = data.appearance
            _ = data.encoded
        },
        seeds: { capture in
            // The data of every legacy advertising report in the capture.
            let events = CaptureRecords.packets(of: capture).filter { $0.type == .event }.map(\.bytes)
            let data = events.flatMap { event -> [[UInt8]] in
                guard event.count > 3, event[0] == 0x3E, event[2] == 0x02 else { return [] }
                let reports = event.withUnsafeBytes { bytes in
                    try? HCIList<LEAdvertisingReport>(decoding: UnsafeRawBufferPointer(rebasing: bytes[3...]), packet: "LE Advertising Report", extensible: true).elements
                }
                return (reports ?? []).map(\.data)
            }
            return CaptureRecords.distinct(data)
        })
}
