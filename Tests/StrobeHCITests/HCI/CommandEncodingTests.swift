import Testing
import StrobeHCI

private let peer = BluetoothAddress("F0:F1:F2:F3:F4:F5")!

@Suite struct CommandEncodingTests {
    @Test func parameterlessCommands() {
        #expect(HCIReset().packet == bytes("01 03 0c 00"))
        #expect(HCIReadLocalVersionInformation().packet == bytes("01 01 10 00"))
        #expect(HCIReadLocalSupportedCommands().packet == bytes("01 02 10 00"))
        #expect(HCIReadLocalSupportedFeatures().packet == bytes("01 03 10 00"))
        #expect(HCIReadBufferSize().packet == bytes("01 05 10 00"))
        #expect(HCIReadBDAddr().packet == bytes("01 09 10 00"))
        #expect(HCILEReadBufferSizeV1().packet == bytes("01 02 20 00"))
        #expect(HCILEReadBufferSizeV2().packet == bytes("01 60 20 00"))
        #expect(HCILEReadLocalSupportedFeatures().packet == bytes("01 03 20 00"))
        #expect(HCILECreateConnectionCancel().packet == bytes("01 0e 20 00"))
    }

    @Test func eventMasks() {
        #expect(HCISetEventMask(mask: 0x2000_8000_0200_8890).packet == bytes("01 01 0c 08 90 88 00 02 00 80 00 20"))
        #expect(HCILESetEventMask(mask: 0x1F).packet == bytes("01 01 20 08 1f 00 00 00 00 00 00 00"))
        // Disconnection Complete (bit 4), Encryption Change (7), Read Remote Version Complete (11),
        // Hardware Error (15), Data Buffer Overflow (25), Encryption Key Refresh (47), LE Meta (61).
        #expect(HCIEventMask.default == 0x2000_8000_0200_8890)
        // LE subevents 0x01-0x07, 0x0A, 0x0C, 0x0D and 0x29.
        #expect(HCIEventMask.leDefault == 0x0000_0100_0000_1A7F)
    }

    @Test func legacyScanning() {
        // As a Bumble controller receives it: active, 10 ms interval and window, public own address.
        let parameters = HCILESetScanParameters(scanType: .active, scanInterval: 0x10, scanWindow: 0x10)
        #expect(parameters.packet == bytes("01 0b 20 07 01 10 00 10 00 00 00"))
        #expect(HCILESetScanEnable(enable: true).packet == bytes("01 0c 20 02 01 00"))
        #expect(HCILESetScanEnable(enable: false, filterDuplicates: true).packet == bytes("01 0c 20 02 00 01"))
    }

    @Test func extendedScanning() {
        let oneM = HCILESetExtendedScanParameters(
            le1M: .init(scanType: .active, scanInterval: 0x10, scanWindow: 0x10))
        #expect(oneM.packet == bytes("01 41 20 08 00 00 01 01 10 00 10 00"))
        let both = HCILESetExtendedScanParameters(
            ownAddressType: .random, scanningFilterPolicy: 0,
            le1M: .init(scanType: .passive, scanInterval: 0x60, scanWindow: 0x30),
            leCoded: .init(scanType: .active, scanInterval: 0x0120, scanWindow: 0x90))
        #expect(both.packet == bytes("01 41 20 0d 01 00 05 00 60 00 30 00 01 20 01 90 00"))
        let enable = HCILESetExtendedScanEnable(enable: true, filterDuplicates: 0, duration: 0x01F4, period: 0)
        #expect(enable.packet == bytes("01 42 20 06 01 00 f4 01 00 00"))
    }

    @Test func createConnection() {
        // The bytes a Bumble controller receives for a 30-50 ms interval, 5 s timeout connection.
        let command = HCILECreateConnection(
            scanInterval: 0x60, scanWindow: 0x30, peerAddressType: .random, peerAddress: peer,
            connection: LEConnectionParameters(intervalMin: 0x18, intervalMax: 0x28, supervisionTimeout: 0x1F4))
        #expect(command.packet == bytes("01 0d 20 19 60 00 30 00 00 01 f5 f4 f3 f2 f1 f0 00 18 00 28 00 00 00 f4 01 00 00 00 00"))
        #expect(HCILECreateConnection.completion == .commandStatus)
    }

    @Test func connectionParametersFromDurations() {
        let parameters = LEConnectionParameters(
            interval: .milliseconds(30)...(.milliseconds(50)), supervisionTimeout: .seconds(5))
        #expect(parameters == LEConnectionParameters(intervalMin: 0x18, intervalMax: 0x28, supervisionTimeout: 0x1F4))
        // Out-of-range values clamp to the spec's range instead of wrapping.
        let clamped = LEConnectionParameters(interval: .zero...(.seconds(10)), supervisionTimeout: .milliseconds(1))
        #expect(clamped.intervalMin == 0x0006 && clamped.intervalMax == 0x0C80 && clamped.supervisionTimeout == 0x000A)
        #expect(LETime.units625us(.milliseconds(10)) == 0x10)
        #expect(LETime.units625us(.milliseconds(60)) == 0x60)
    }

    @Test func extendedCreateConnection() {
        let connection = LEConnectionParameters(intervalMin: 0x18, intervalMax: 0x28, supervisionTimeout: 0x1F4)
        let command = HCILEExtendedCreateConnection(
            peerAddressType: .random, peerAddress: peer,
            le1M: .init(scanInterval: 0x60, scanWindow: 0x30, connection: connection),
            le2M: .init(scanInterval: 0x60, scanWindow: 0x30, connection: connection))
        let perPHY = bytes("60 00 30 00 18 00 28 00 00 00 f4 01 00 00 00 00")
        #expect(command.packet == bytes("01 43 20 2a 00 00 01 f5 f4 f3 f2 f1 f0 03") + perPHY + perPHY)
    }

    @Test func connectionManagement() {
        #expect(HCIDisconnect(connectionHandle: 0x0001).packet == bytes("01 06 04 03 01 00 13"))
        #expect(HCIDisconnect(connectionHandle: 0x0040, reason: .connectionTerminatedByLocalHost).packet
            == bytes("01 06 04 03 40 00 16"))
        let update = HCILEConnectionUpdate(
            connectionHandle: 0x0001,
            connection: LEConnectionParameters(intervalMin: 6, intervalMax: 12, maxLatency: 4, supervisionTimeout: 400))
        #expect(update.packet == bytes("01 13 20 0e 01 00 06 00 0c 00 04 00 90 01 00 00 00 00"))
        #expect(HCILESetDataLength(connectionHandle: 1, txOctets: 251, txTime: 2120).packet
            == bytes("01 22 20 06 01 00 fb 00 48 08"))
        #expect(HCILESetPHY(connectionHandle: 1, txPHYs: .le2M, rxPHYs: [.le1M, .le2M]).packet
            == bytes("01 32 20 07 01 00 00 02 03 00 00"))
        #expect(HCILEReadRemoteFeatures(connectionHandle: 2).packet == bytes("01 16 20 02 02 00"))
        #expect(HCIReadRemoteVersionInformation(connectionHandle: 2).packet == bytes("01 1d 04 02 02 00"))
    }

    @Test func advertising() {
        let parameters = HCILESetAdvertisingParameters(intervalMin: 0x20, intervalMax: 0x30)
        #expect(parameters.packet == bytes("01 06 20 0f 20 00 30 00 00 00 00 00 00 00 00 00 00 07 00"))
        let data: [UInt8] = [0x02, 0x01, 0x06, 0x04, 0x09, 0x41, 0x42, 0x43]
        let packet = HCILESetAdvertisingData(data: data)?.packet
        #expect(packet == bytes("01 08 20 20 08") + data + [UInt8](repeating: 0, count: 23))
        #expect(HCILESetScanResponseData(data: [])?.packet == bytes("01 09 20 20 00") + [UInt8](repeating: 0, count: 31))
        #expect(HCILESetAdvertisingData(data: [UInt8](repeating: 1, count: 32)) == nil)
        #expect(HCILESetScanResponseData(data: [UInt8](repeating: 1, count: 31)) != nil)
        #expect(HCILESetAdvertisingEnable(enable: true).packet == bytes("01 0a 20 01 01"))
    }

    @Test func extendedAdvertising() throws {
        // ADV_IND through the extended commands, 100 ms (0xA0), public address, no TX preference.
        let parameters = HCILESetExtendedAdvertisingParameters(intervalMin: 0xA0, intervalMax: 0xA0)
        #expect(parameters.packet == bytes("01 36 20 19 00 13 00 a0 00 00 a0 00 00 07 00 00 00 00 00 00 00 00 00 7f 01 00 01 00 00"))
        let power = try [UInt8(0xF8)].withUnsafeBytes { raw in
            try HCILESetExtendedAdvertisingParameters.ReturnParameters(decoding: raw, packet: "Command Complete")
        }
        #expect(power.selectedTxPower == -8)
        let data: [UInt8] = [0x02, 0x01, 0x06]
        #expect(HCILESetExtendedAdvertisingData(data: data)?.packet == bytes("01 37 20 07 00 03 01 03 02 01 06"))
        #expect(HCILESetExtendedScanResponseData(data: [])?.packet == bytes("01 38 20 04 00 03 01 00"))
        #expect(HCILESetExtendedAdvertisingData(data: [UInt8](repeating: 0, count: 252)) == nil)
        #expect(HCILESetExtendedAdvertisingEnable(enable: true).packet == bytes("01 39 20 06 01 01 00 00 00 00"))
        #expect(HCIOpcode.leSetExtendedAdvertisingEnable.description == "LE Set Extended Advertising Enable (0x2039)")
    }

    @Test func opcodeNames() {
        #expect(HCIOpcode.leSetScanEnable.description == "LE Set Scan Enable (0x200C)")
        #expect(HCIOpcode(rawValue: 0xFC01).description == "0xFC01")
        #expect(HCIOpcode.readBDAddr.ogf == 0x04 && HCIOpcode.readBDAddr.ocf == 0x0009)
    }
}
