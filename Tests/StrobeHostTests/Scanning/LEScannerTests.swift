import StrobeHCI
import Testing
import StrobeBase
import Synchronization
import StrobeHost

private let bumbleAdvertisement = bytes("02 01 06 0e 09 42 75 6d 62 6c 65 2d 50 65 72 69 70 68")
private let bumbleAddress = BluetoothAddress("F0:F1:F2:F3:F4:F5")!

private func openScanner(extendedScanning: Bool, clock: VirtualClock = VirtualClock()) async throws
    -> (LEScanner, ScriptedTransport) {
    let transport = scriptedController(extendedScanning: extendedScanning)
    let controller = HCIController(transport: transport, clock: clock)
    try await controller.open()
    return (LEScanner(controller: controller), transport)
}

@Suite(.timeLimit(.minutes(1))) struct LEScannerTests {
    @Test func legacyScanningWhenExtendedIsNotSupported() async throws {
        let (scanner, transport) = try await openScanner(extendedScanning: false)
        try await scanner.start()
        #expect(!scanner.usesExtendedScanning && scanner.isScanning)
        #expect(Array(transport.sent.suffix(2)) == [
            HCILESetScanParameters(scanType: .active, scanInterval: 0x60, scanWindow: 0x60).packet,
            HCILESetScanEnable(enable: true).packet,
        ])
        try await scanner.stop()
        #expect(transport.sent.last == HCILESetScanEnable(enable: false).packet)
        #expect(!scanner.isScanning)
    }

    @Test func extendedScanningWhenSupported() async throws {
        let (scanner, transport) = try await openScanner(extendedScanning: true)
        try await scanner.start(.init(active: false, interval: .milliseconds(100), window: .milliseconds(50)))
        #expect(scanner.usesExtendedScanning)
        #expect(Array(transport.sent.suffix(2)) == [
            HCILESetExtendedScanParameters(le1M: .init(scanType: .passive, scanInterval: 0xA0, scanWindow: 0x50)).packet,
            HCILESetExtendedScanEnable(enable: true).packet,
        ])
        try await scanner.stop()
        #expect(transport.sent.last == HCILESetExtendedScanEnable(enable: false).packet)
    }

    @Test func modeCanBeForced() async throws {
        let (legacy, legacyTransport) = try await openScanner(extendedScanning: true)
        try await legacy.start(.init(mode: .legacy))
        #expect(!legacy.usesExtendedScanning)
        #expect(legacyTransport.sent.last == HCILESetScanEnable(enable: true).packet)

        let (unsupported, _) = try await openScanner(extendedScanning: false)
        await #expect(throws: StrobeError.controller(HCIError.unsupported(.leSetExtendedScanParameters))) {
            try await unsupported.start(.init(mode: .extended))
        }
        #expect(!unsupported.isScanning)
    }

    @Test func duplicatesFoldIntoOneEntryWithScanResponseMerged() async throws {
        let (scanner, transport) = try await openScanner(extendedScanning: false)
        let updates = scanner.updates()
        try await scanner.start()
        let shortName = bytes("02 01 06 04 08 42 75 6d")
        let response = bytes("0e 09 42 75 6d 62 6c 65 2d 50 65 72 69 70 68 03 03 0d 18 05 ff 4c 00 02 15")
        transport.deliver(advertisingReport(eventType: 0x00, data: shortName, rssi: -50), at: HostTime(nanoseconds: 10))
        transport.deliver(advertisingReport(eventType: 0x00, data: shortName, rssi: -40), at: HostTime(nanoseconds: 20))
        transport.deliver(advertisingReport(eventType: 0x04, data: response, rssi: -45), at: HostTime(nanoseconds: 30))
        // Same address, other address type: another device.
        transport.deliver(advertisingReport(eventType: 0x03, addressType: 0x00, data: [], rssi: -70))

        let devices = scanner.devices
        #expect(devices.count == 2)
        let device = try #require(devices.first)
        #expect(device.address == bumbleAddress && device.addressType == .random)
        #expect(device.reportCount == 3 && device.rssi == -45 && device.lastSeen == HostTime(nanoseconds: 30))
        #expect(device.name == "Bumble-Periph")
        #expect(device.serviceUUIDs == [BluetoothUUID(UInt16(0x180D))])
        #expect(device.manufacturerData == [ManufacturerData(companyIdentifier: 0x004C, data: [0x02, 0x15])])
        #expect(device.connectable)
        #expect(device.advertisingData.localName == "Bum" && device.scanResponse?.localName == "Bumble-Periph")
        #expect(devices[1].addressType == .public && !devices[1].connectable)
        #expect(scanner.counters.reports == 4 && scanner.counters.scanResponses == 1)

        var seen: [(String?, Int?)] = []
        for await update in updates {
            seen.append((update.name, update.rssi))
            if seen.count == 4 { break }
        }
        #expect(seen.map(\.0) == ["Bum", "Bum", "Bumble-Periph", nil])
        #expect(seen.map(\.1) == [-50, -40, -45, -70])
    }

    @Test func newAdvertisingDataReplacesTheOld() async throws {
        let (scanner, transport) = try await openScanner(extendedScanning: false)
        try await scanner.start()
        transport.deliver(advertisingReport(eventType: 0x00, data: bumbleAdvertisement, rssi: -50))
        transport.deliver(advertisingReport(eventType: 0x03, data: bytes("02 0a 04"), rssi: -51))
        let device = try #require(scanner.device(.init(address: bumbleAddress, addressType: .random)))
        #expect(device.name == nil && device.txPower == 4 && !device.connectable && device.reportCount == 2)
    }

    @Test func malformedAdvertisingDataIsCountedAndTheDeviceKept() async throws {
        let (scanner, transport) = try await openScanner(extendedScanning: false)
        try await scanner.start()
        transport.deliver(advertisingReport(eventType: 0x00, data: bumbleAdvertisement, rssi: -50))
        transport.deliver(advertisingReport(eventType: 0x00, data: bytes("05 09 41 42"), rssi: -60))
        let device = try #require(scanner.devices.first)
        #expect(device.name == "Bumble-Periph" && device.rssi == -60 && device.reportCount == 2)
        #expect(scanner.counters.malformedAdvertisingData == 1)
        #expect(scanner.lastMalformed == .lengthExceedsData(offset: 0, length: 5, remaining: 3))
    }

    @Test func extendedReportsAreReassembled() async throws {
        let (scanner, transport) = try await openScanner(extendedScanning: true)
        try await scanner.start()
        let first = Array(bumbleAdvertisement.prefix(7))
        let rest = Array(bumbleAdvertisement.dropFirst(7))
        // Connectable + scannable, incomplete with more to come, then the complete tail.
        transport.deliver(extendedAdvertisingReport(eventType: 0x0003 | 0x0020, txPower: -4, data: first, rssi: -55))
        #expect(scanner.devices.isEmpty)
        transport.deliver(extendedAdvertisingReport(eventType: 0x0003, txPower: -4, data: rest, rssi: -56))
        let device = try #require(scanner.devices.first)
        #expect(device.name == "Bumble-Periph" && device.connectable && device.rssi == -56 && device.reportCount == 1)
        #expect(device.txPower == -4)
    }

    @Test func reportsOutsideAScanAreIgnored() async throws {
        let (scanner, transport) = try await openScanner(extendedScanning: false)
        transport.deliver(advertisingReport(eventType: 0x00, data: bumbleAdvertisement, rssi: -50))
        #expect(scanner.devices.isEmpty)
    }

    @Test func scanForADurationUsesTheInjectedClock() async throws {
        let clock = VirtualClock()
        let (scanner, transport) = try await openScanner(extendedScanning: false, clock: clock)
        let scan = Task { try await scanner.scan(for: .seconds(5)) }
        await clock.waitForSleepers(count: 1, deadline: .init(offset: .seconds(5)))
        #expect(scanner.isScanning)
        transport.deliver(advertisingReport(eventType: 0x00, data: bumbleAdvertisement, rssi: -50))
        clock.advance(by: .seconds(5))
        let found = try await scan.outcome
        #expect(found.map(\.name) == ["Bumble-Periph"])
        #expect(transport.sent.last == HCILESetScanEnable(enable: false).packet)
        #expect(!scanner.isScanning)
    }

    /// A controller that grants no command credits after LE Set Scan Enable: the disable is
    /// never sent, and the scan says so instead of returning its devices.
    @Test func aDisableNeverSentFailsTheScan() async throws {
        let clock = VirtualClock()
        let base = scriptedController(extendedScanning: false)
        let transport = ScriptedTransport { packet in
            var answers = base.answers(to: packet)
            // Num_HCI_Command_Packets, the first parameter of Command Complete, made 0.
            if packet == HCILESetScanEnable(enable: true).packet { answers[0][3] = 0 }
            return answers
        }
        let controller = HCIController(transport: transport, clock: clock)
        try await controller.open()
        let scanner = LEScanner(controller: controller)
        let scan = Task { try await scanner.scan(for: .seconds(5)) }
        await clock.waitForSleepers(count: 1, deadline: .init(offset: .seconds(5)))
        transport.deliver(advertisingReport(eventType: 0x00, data: bumbleAdvertisement, rssi: -50))
        clock.advance(by: .seconds(5))
        // The disable waits for credits until the command deadline (2 s by default).
        await clock.waitForSleepers(count: 1, deadline: .init(offset: .seconds(7)))
        clock.advance(by: .seconds(2))
        await #expect(throws: StrobeError.controller(HCIError.noCommandCredits(.leSetScanEnable, after: .seconds(2)))) {
            try await scan.outcome
        }
        #expect(transport.sent.last == HCILESetScanEnable(enable: true).packet, "the disable was never written")
        #expect(!scanner.isScanning)
    }

    @Test func cancelledScanStillStops() async throws {
        let clock = VirtualClock()
        let (scanner, transport) = try await openScanner(extendedScanning: false, clock: clock)
        let scan = Task { try await scanner.scan(for: .seconds(5)) }
        await clock.waitForSleepers(count: 1, deadline: .init(offset: .seconds(5)))
        scan.cancel()
        await #expect(throws: StrobeError.cancelled) { try await scan.outcome }
        #expect(transport.sent.last == HCILESetScanEnable(enable: false).packet)
        #expect(!scanner.isScanning)
    }

    /// Two scanners on one controller: each sees every advertiser while it scans, neither
    /// stops the other, and the controller's scan is disabled only when both are done.
    @Test func twoScannersShareTheControllersScan() async throws {
        let (first, transport) = try await openScanner(extendedScanning: false)
        let second = LEScanner(controller: first.controller)
        try await first.start(.init(active: false))
        try await second.start(.init(active: true, interval: .milliseconds(30), window: .milliseconds(30)))
        // The second wants more: the scan restarts active at its interval, for both.
        #expect(Array(transport.sent.suffix(5)) == [
            HCILESetScanParameters(scanType: .passive, scanInterval: 0x60, scanWindow: 0x60).packet,
            HCILESetScanEnable(enable: true).packet,
            HCILESetScanEnable(enable: false).packet,
            HCILESetScanParameters(scanType: .active, scanInterval: 0x30, scanWindow: 0x30).packet,
            HCILESetScanEnable(enable: true).packet,
        ])
        transport.deliver(advertisingReport(eventType: 0x00, data: bumbleAdvertisement, rssi: -50))
        transport.deliver(advertisingReport(eventType: 0x00, address: [1, 2, 3, 4, 5, 0xC0], data: [], rssi: -60))
        #expect(first.devices.count == 2 && second.devices.count == 2)

        // The first scans on as it was: no command, no gap.
        let sent = transport.sent.count
        try await second.stop()
        #expect(transport.sent.count == sent)
        #expect(first.isScanning && !second.isScanning)
        transport.deliver(advertisingReport(eventType: 0x00, address: [1, 2, 3, 4, 5, 0xC1], data: [], rssi: -60))
        #expect(first.devices.count == 3 && second.devices.count == 2)
        try await first.stop()
        #expect(transport.sent.last == HCILESetScanEnable(enable: false).packet)
    }

    /// A scanner asking for no more than the running scan gives joins it without a command, and
    /// the scan runs on as it is until the last one leaves.
    @Test func aScannerTheRunningScanServesCostsNoCommand() async throws {
        let (first, transport) = try await openScanner(extendedScanning: false)
        try await first.start()
        let sent = transport.sent.count
        let second = LEScanner(controller: first.controller)
        try await second.start(.init(active: false, interval: .milliseconds(100), window: .milliseconds(10)))
        #expect(second.isScanning && transport.sent.count == sent)
        try await first.stop()
        try await second.stop()
        #expect(Array(transport.sent[sent...]) == [HCILESetScanEnable(enable: false).packet])
    }

    /// A controller that takes the first LE Set Scan Parameters and refuses every later one: the
    /// scanner asking for more fails its start, and when the restart for the one already
    /// scanning fails too, that one is told (it is no longer scanning, and leaves nothing behind).
    @Test func aScannerDroppedByAFailedRestartStopsScanning() async throws {
        let base = scriptedController(extendedScanning: false)
        let parameters = Lock(0)
        let transport = ScriptedTransport { packet in
            guard opcode(of: packet) == .leSetScanParameters else { return base.answers(to: packet) }
            let refused = parameters.withLock { n in
                n += 1
                return n > 1
            }
            return [[0x04, 0x0E, 0x04, 0x01, 0x0B, 0x20, refused ? HCIStatus.commandDisallowed.rawValue : 0x00]]
        }
        let controller = HCIController(transport: transport, clock: VirtualClock())
        try await controller.open()
        let first = LEScanner(controller: controller)
        try await first.start(.init(active: false))
        let second = LEScanner(controller: controller)
        await #expect(throws: StrobeError.controller(HCIError.commandFailed(.leSetScanParameters, .commandDisallowed))) {
            try await second.start(.init(active: true))
        }
        #expect(!second.isScanning)
        #expect(await eventually { !first.isScanning })
        // Nobody is left in the shared scan: a new scanner's start is a fresh one.
        #expect(controller.scanning.running == nil)
    }

    /// Legacy and extended commands cannot be mixed on one controller: a scanner forcing the
    /// other kind is refused (and what it ran before is withdrawn); `.automatic` follows the
    /// scan running.
    @Test func aScanThatCannotShareIsRefused() async throws {
        let (legacy, transport) = try await openScanner(extendedScanning: true)
        try await legacy.start(.init(mode: .legacy))
        let automatic = LEScanner(controller: legacy.controller)
        try await automatic.start()
        #expect(!automatic.usesExtendedScanning)
        let extended = LEScanner(controller: legacy.controller)
        await #expect(throws: StrobeError.controller(HCIError.scanConflict(extended: false, ownAddressType: .public))) {
            try await extended.start(.init(mode: .extended))
        }
        #expect(!extended.isScanning)
        // Alone, it scans with the extended commands; then the legacy ones are refused, and a
        // refused restart leaves it not scanning, its earlier scan withdrawn.
        try await legacy.stop()
        try await automatic.stop()
        try await extended.start(.init(mode: .extended))
        await #expect(throws: StrobeError.controller(HCIError.scanConflict(extended: true, ownAddressType: .public))) {
            try await legacy.start(.init(mode: .legacy))
        }
        let other = LEScanner(controller: legacy.controller)
        try await other.start()
        #expect(other.usesExtendedScanning)
        await #expect(throws: StrobeError.controller(HCIError.scanConflict(extended: true, ownAddressType: .public))) {
            try await other.start(.init(mode: .legacy))
        }
        #expect(!other.isScanning)
        try await extended.stop()
        #expect(transport.sent.last == HCILESetExtendedScanEnable(enable: false).packet)
    }

    @Test func updatesFinishWhenTheControllerCloses() async throws {
        let (scanner, _) = try await openScanner(extendedScanning: false)
        let updates = scanner.updates()
        scanner.controller.close()
        var count = 0
        for await _ in updates { count += 1 }
        #expect(count == 0)
        #expect(!scanner.isScanning)
    }
}
