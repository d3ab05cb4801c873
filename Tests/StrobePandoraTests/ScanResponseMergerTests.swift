import Strobe
import Testing
import StrobePandora

/// One report per advertisement, its scan response's data joined to it.
@Suite struct ScanResponseMergerTests {
    static let advertiser = BluetoothAddress("C4:00:00:00:00:01")!

    static func report(scannable: Bool, scanResponse: Bool = false, data: [UInt8]) -> ScanReport {
        ScanReport(address: advertiser, addressType: .random, connectable: true, scannable: scannable,
                   isScanResponse: scanResponse, rssi: -50, data: data)
    }

    @Test func aScannableAdvertisementWaitsForItsScanResponse() {
        var merger = ScanResponseMerger(active: true)
        #expect(merger.receive(Self.report(scannable: true, data: [0x02, 0x01, 0x06])).isEmpty)
        let merged = merger.receive(Self.report(scannable: true, scanResponse: true, data: [0x03, 0xFF, 0xE0, 0x00]))
        #expect(merged.count == 1)
        #expect(merged.first?.data == [0x02, 0x01, 0x06, 0x03, 0xFF, 0xE0, 0x00])
        #expect(merged.first?.isScanResponse == false)
    }

    @Test func aNewAdvertisementReleasesTheOneHeld() {
        var merger = ScanResponseMerger(active: true)
        _ = merger.receive(Self.report(scannable: true, data: [0x02, 0x01, 0x06]))
        let out = merger.receive(Self.report(scannable: true, data: [0x02, 0x01, 0x05]))
        #expect(out.map(\.data) == [[0x02, 0x01, 0x06]])
        // A scan response with nothing held is dropped: it belongs to no advertisement reported.
        var fresh = ScanResponseMerger(active: true)
        #expect(fresh.receive(Self.report(scannable: true, scanResponse: true, data: [])).isEmpty)
    }

    @Test func passiveScansAndUnscannablePDUsAreReportedAtOnce() {
        var passive = ScanResponseMerger(active: false)
        #expect(passive.receive(Self.report(scannable: true, data: [0x02, 0x01, 0x06])).count == 1)
        var active = ScanResponseMerger(active: true)
        #expect(active.receive(Self.report(scannable: false, data: [0x02, 0x01, 0x06])).count == 1)
    }
}
