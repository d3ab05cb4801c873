import Testing
import StrobeHCI

/// Decodes an H4 event (type byte first), as the tests write them.
private func event(_ hexString: String) throws(HCIError) -> HCIEvent {
    try HCIEvent(packet: Array(bytes(hexString).dropFirst()))
}

/// The malformed error a decode throws, or `nil` when it decodes.
private func malformed(_ hexString: String) -> HCIError? {
    do { _ = try event(hexString); return nil } catch { return error }
}

/// Decodes the return parameters of a Command Complete for `C` (status byte checked first).
private func returnParameters<C: HCICommand>(_: C.Type, _ hexString: String) throws -> C.ReturnParameters {
    guard case .commandComplete(let complete) = try event(hexString) else {
        throw HCIError.malformed(packet: "test", detail: "not Command Complete")
    }
    #expect(complete.opcode == C.opcode)
    #expect(complete.returnParameters.first == 0)
    return try Array(complete.returnParameters.dropFirst()).withUnsafeBytes { bytes in
        try C.ReturnParameters(decoding: bytes, packet: "return parameters")
    }
}

@Suite struct EventDecodingTests {
    @Test func readBDAddrCommandComplete() throws {
        let address = try returnParameters(HCIReadBDAddr.self, "04 0e 0a 01 09 10 00 55 44 33 22 11 00")
        #expect(address.bdAddr.description == "00:11:22:33:44:55")
        guard case .commandComplete(let complete) = try event("04 0e 0a 01 09 10 00 55 44 33 22 11 00") else {
            Issue.record("not Command Complete")
            return
        }
        #expect(complete.numHCICommandPackets == 1)
        #expect(complete.returnParameters == bytes("00 55 44 33 22 11 00"))
    }

    @Test func initReturnParameters() throws {
        let version = try returnParameters(HCIReadLocalVersionInformation.self, "04 0e 0c 01 01 10 00 0c 34 12 0c 02 00 78 56")
        #expect(version == LocalVersionInformation(
            hciVersion: 0x0C, hciSubversion: 0x1234, lmpVersion: 0x0C, companyIdentifier: 0x0002, lmpSubversion: 0x5678))
        let v1 = try returnParameters(HCILEReadBufferSizeV1.self, "04 0e 07 01 02 20 00 1b 00 40")
        #expect(v1.bufferSize == LEBufferSize(leACLDataPacketLength: 27, totalNumLEACLDataPackets: 64))
        let v2 = try returnParameters(HCILEReadBufferSizeV2.self, "04 0e 0a 01 60 20 00 fb 00 0c 00 01 02")
        #expect(v2.bufferSize == LEBufferSize(leACLDataPacketLength: 251, totalNumLEACLDataPackets: 12,
                                   isoDataPacketLength: 256, totalNumISODataPackets: 2))
        let brEdr = try returnParameters(HCIReadBufferSize.self, "04 0e 0b 01 05 10 00 fd 03 40 06 00 08 00")
        #expect(brEdr.aclDataPacketLength == 1021 && brEdr.totalNumACLDataPackets == 6)
        let le = try returnParameters(HCILEReadLocalSupportedFeatures.self, "04 0e 0c 01 03 20 00 65 01 00 00 00 00 00 00")
        #expect(le.leFeatures.contains(.encryption) && le.leFeatures.contains(.dataPacketLengthExtension) && le.leFeatures.contains(.le2MPHY))
        #expect(!le.leFeatures.contains(.leCodedPHY))
        let handle = try returnParameters(HCILESetDataLength.self, "04 0e 06 01 22 20 00 01 00")
        #expect(handle.connectionHandle == 1)
    }

    @Test func shortReturnParametersNameTheField() {
        #expect(throws: HCIError.malformed(packet: "return parameters", detail: "BD_ADDR needs 6 bytes, 3 left")) {
            try returnParameters(HCIReadBDAddr.self, "04 0e 07 01 09 10 00 55 44 33")
        }
    }

    @Test func advertisingReport() throws {
        let decoded = try event("""
            04 3e 1e 02 01 00 01 f5 f4 f3 f2 f1 f0 12 02 01 06 0e 09 42 75 6d 62 6c 65 2d 50 65 72 69 70 68 ce
            """)
        guard case .leAdvertisingReport(let reports) = decoded, let report = reports.first else {
            Issue.record("not an advertising report: \(decoded)")
            return
        }
        #expect(reports.count == 1)
        #expect(report.eventType == .advInd && report.eventType.isConnectable)
        #expect(report.addressType == .random)
        #expect(report.address.description == "F0:F1:F2:F3:F4:F5")
        #expect(report.rssi == -50)
        #expect(report.data.count == 18)
        #expect(String(decoding: report.data[5...], as: UTF8.self) == "Bumble-Periph")
    }

    @Test func twoAdvertisingReportsAndUnavailableRSSI() throws {
        let decoded = try event("04 3e 18 02 02 04 00 01 02 03 04 05 06 02 01 06 7f 03 01 aa bb cc dd ee ff 00 c4")
        guard case .leAdvertisingReport(let reports) = decoded else {
            Issue.record("not an advertising report")
            return
        }
        #expect(reports.count == 2)
        #expect(reports[0].eventType == .scanRsp && reports[0].rssi == nil && reports[0].data == [0x01, 0x06])
        #expect(reports[1].eventType == .advNonconnInd && !reports[1].eventType.isConnectable)
        #expect(reports[1].address.description == "FF:EE:DD:CC:BB:AA" && reports[1].data.isEmpty && reports[1].rssi == -60)
    }

    @Test func extendedAdvertisingReport() throws {
        // Legacy ADV_IND (0x13) seen by an extended scan: random F0:..:F5, 1M, no SID, no TX power, RSSI -50.
        let decoded = try event("""
            04 3e 1d 0d 01 13 00 01 f5 f4 f3 f2 f1 f0 01 00 ff 7f ce 00 00 00 00 00 00 00 00 00 03 02 01 06
            """)
        guard case .leExtendedAdvertisingReport(let reports) = decoded, let report = reports.first else {
            Issue.record("not an extended advertising report")
            return
        }
        #expect(report.eventType.isConnectable && report.eventType.isScannable && report.eventType.isLegacy)
        #expect(!report.eventType.isScanResponse && report.eventType.dataStatus == .complete)
        #expect(report.primaryPHY == .le1M && report.secondaryPHY.rawValue == 0)
        #expect(report.advertisingSID == 0xFF && report.txPower == nil && report.rssi == -50)
        #expect(report.data == [0x02, 0x01, 0x06])
        // Scan response, incomplete with more to come (bits 3 and 5).
        let more = try event("04 3e 1b 0d 01 28 00 00 01 02 03 04 05 06 01 02 01 f4 c0 00 00 00 00 00 00 00 00 00 01 aa")
        guard case .leExtendedAdvertisingReport(let pieces) = more, let piece = pieces.first else {
            Issue.record("not an extended advertising report")
            return
        }
        #expect(piece.eventType.isScanResponse && piece.eventType.dataStatus == .incompleteMoreToCome)
        #expect(piece.secondaryPHY == .le2M && piece.advertisingSID == 1 && piece.txPower == -12 && piece.rssi == -64)
    }

    @Test func connectionCompleteForms() throws {
        // LE Connection Complete as a Bumble controller sends it: handle 1, central, random peer.
        guard case .leConnectionComplete(let legacy) = try event(
            "04 3e 13 01 00 01 00 00 01 f5 f4 f3 f2 f1 f0 18 00 00 00 f4 01 00") else {
            Issue.record("not a connection complete")
            return
        }
        #expect(legacy.subevent == 0x01 && legacy.status.isSuccess && legacy.connectionHandle == 1)
        #expect(legacy.role == .central && legacy.peerAddressType == .random)
        #expect(legacy.peerAddress.description == "F0:F1:F2:F3:F4:F5")
        #expect(legacy.connectionInterval == 0x18 && legacy.peripheralLatency == 0 && legacy.supervisionTimeout == 0x1F4)
        #expect(legacy.localResolvablePrivateAddress == nil && legacy.advertisingHandle == nil)

        let enhanced = "00 02 00 01 00 f5 f4 f3 f2 f1 f0 11 11 11 11 11 11 22 22 22 22 22 22 06 00 00 00 48 00 05"
        guard case .leConnectionComplete(let v1) = try event("04 3e 1f 0a " + enhanced) else {
            Issue.record("not an enhanced connection complete")
            return
        }
        #expect(v1.subevent == 0x0A && v1.connectionHandle == 2 && v1.role == .peripheral && v1.peerAddressType == .public)
        #expect(v1.localResolvablePrivateAddress?.description == "11:11:11:11:11:11")
        #expect(v1.peerResolvablePrivateAddress?.description == "22:22:22:22:22:22")
        #expect(v1.connectionInterval == 6 && v1.supervisionTimeout == 0x48 && v1.centralClockAccuracy == 5)
        #expect(v1.advertisingHandle == nil)

        guard case .leConnectionComplete(let v2) = try event("04 3e 22 29 " + enhanced + " 03 ff ff") else {
            Issue.record("not an enhanced connection complete v2")
            return
        }
        #expect(v2.subevent == 0x29 && v2.advertisingHandle == 3 && v2.syncHandle == 0xFFFF)
        // A failed creation (cancelled): status Unknown Connection Identifier.
        guard case .leConnectionComplete(let cancelled) = try event(
            "04 3e 13 01 02 00 00 00 01 f5 f4 f3 f2 f1 f0 00 00 00 00 00 00 00") else {
            Issue.record("not a connection complete")
            return
        }
        #expect(cancelled.status == .unknownConnectionIdentifier)
    }

    @Test func connectionEvents() throws {
        #expect(try event("04 05 04 00 01 00 13") == .disconnectionComplete(DisconnectionCompleteEvent(
            status: .success, connectionHandle: 1, reason: .remoteUserTerminatedConnection)))
        #expect(try event("04 0c 08 00 01 00 09 ff ff 00 00") == .readRemoteVersionInformationComplete(
            ReadRemoteVersionInformationCompleteEvent(status: .success, connectionHandle: 1, version: 9,
                                                      companyIdentifier: 0xFFFF, subversion: 0)))
        #expect(try event("04 13 09 02 01 00 03 00 02 00 01 00") == .numberOfCompletedPackets([
            CompletedPackets(connectionHandle: 1, count: 3), CompletedPackets(connectionHandle: 2, count: 1)]))
        #expect(try event("04 3e 0a 03 00 01 00 28 00 00 00 2c 01") == .leConnectionUpdateComplete(
            LEConnectionUpdateCompleteEvent(status: .success, connectionHandle: 1, connectionInterval: 0x28,
                                            peripheralLatency: 0, supervisionTimeout: 0x12C)))
        #expect(try event("04 3e 0c 04 00 01 00 01 01 00 00 00 00 00 00") == .leReadRemoteFeaturesComplete(
            LEReadRemoteFeaturesCompleteEvent(status: .success, connectionHandle: 1, features: [.encryption, .le2MPHY])))
        #expect(try event("04 3e 0b 07 01 00 fb 00 48 08 1b 00 48 01") == .leDataLengthChange(
            LEDataLengthChangeEvent(connectionHandle: 1, maxTxOctets: 251, maxTxTime: 2120, maxRxOctets: 27, maxRxTime: 328)))
        #expect(try event("04 3e 06 0c 00 01 00 02 02") == .lePHYUpdateComplete(
            LEPHYUpdateCompleteEvent(status: .success, connectionHandle: 1, txPHY: .le2M, rxPHY: .le2M)))
        #expect(try event("04 10 01 2a") == .hardwareError(code: 0x2A))
        #expect(try event("04 0f 04 0c 01 0d 20") == .commandStatus(
            CommandStatusEvent(status: .commandDisallowed, numHCICommandPackets: 1, opcode: .leCreateConnection)))
    }

    @Test func unknownEventsPassThrough() throws {
        #expect(try event("04 ff 03 01 02 03") == .unknown(code: 0xFF, parameters: [1, 2, 3]))
        // LE Channel Selection Algorithm (0x14) is not decoded: passed through.
        #expect(try event("04 3e 04 14 01 00 01") == .unknownLEMeta(subevent: 0x14, parameters: [1, 0, 1]))
        #expect(try event("04 ff 00") == .unknown(code: 0xFF, parameters: []))
    }

    @Test func malformedEventsNameEventAndField() {
        // The advertising data is announced as 18 bytes but only 5 follow.
        #expect(malformed("04 3e 10 02 01 00 01 f5 f4 f3 f2 f1 f0 12 02 01 06 0e 09")
            == .malformed(packet: "LE Advertising Report", detail: "Data[0] needs 18 bytes, 5 left"))
        // No RSSI after the data.
        #expect(malformed("04 3e 0d 02 01 00 01 f5 f4 f3 f2 f1 f0 02 02 01")
            == .malformed(packet: "LE Advertising Report", detail: "RSSI[0] needs 1 byte, 0 left"))
        // Data_Length above 31 on a legacy report.
        #expect(malformed("04 3e 0c 02 01 00 01 f5 f4 f3 f2 f1 f0 20 00")
            == .malformed(packet: "LE Advertising Report", detail: "Data_Length[0] is 32, more than 31"))
        // Two reports announced, one present.
        #expect(malformed("04 3e 0c 02 02 00 01 f5 f4 f3 f2 f1 f0 00 ce")
            == .malformed(packet: "LE Advertising Report", detail: "Event_Type[1] needs 1 byte, 0 left"))
        #expect(malformed("04 3e 0a 01 00 01 00 00 01 f5 f4 f3 f2")
            == .malformed(packet: "LE Connection Complete", detail: "Peer_Address needs 6 bytes, 4 left"))
        #expect(malformed("04 3e 13 01 00 01 00 07 01 f5 f4 f3 f2 f1 f0 18 00 00 00 f4 01 00")
            == .malformed(packet: "LE Connection Complete",
                          detail: "Role is 0x07, neither central (0x00) nor peripheral (0x01)"))
        #expect(malformed("04 3e 00") == .malformed(packet: "LE Meta", detail: "Subevent_Code needs 1 byte, 0 left"))
        #expect(malformed("04 13 05 02 01 00 01 00")
            == .malformed(packet: "Number Of Completed Packets", detail: "2 handles need 8 bytes, 4 left"))
        #expect(malformed("04 05 02 00 01")
            == .malformed(packet: "Disconnection Complete", detail: "Connection_Handle needs 2 bytes, 1 left"))
        // The length byte disagrees with what arrived.
        #expect(malformed("04 0e 0a 01 09 10 00")
            == .malformed(packet: "Command Complete", detail: "Parameter_Total_Length is 10 but 4 bytes follow"))
        #expect(malformed("04") == .malformed(packet: "HCI event", detail: "Event_Code needs 1 byte, 0 left"))
        #expect(malformed("04 3e 1a 0d 01 13 00 01 f5 f4 f3 f2 f1 f0 01 00 ff 7f ce 00 00 00 00 00 00 00 00 00 03")
            == .malformed(packet: "LE Extended Advertising Report", detail: "Data[0] needs 3 bytes, 0 left"))
    }

    @Test func everyTruncationOfAKnownEventIsAnErrorNotATrap() {
        let packets = [
            "04 3e 1e 02 01 00 01 f5 f4 f3 f2 f1 f0 12 02 01 06 0e 09 42 75 6d 62 6c 65 2d 50 65 72 69 70 68 ce",
            "04 3e 22 29 00 02 00 01 00 f5 f4 f3 f2 f1 f0 11 11 11 11 11 11 22 22 22 22 22 22 06 00 00 00 48 00 05 03 ff ff",
            "04 3e 1d 0d 01 13 00 01 f5 f4 f3 f2 f1 f0 01 00 ff 7f ce 00 00 00 00 00 00 00 00 00 03 02 01 06",
            "04 0c 08 00 01 00 09 ff ff 00 00",
            "04 3e 0b 07 01 00 fb 00 48 08 1b 00 48 01",
        ]
        for packet in packets {
            let full = Array(bytes(packet).dropFirst())
            // Cut the parameters short and fix the length byte, so only the field layout can fail.
            for cut in 2..<full.count {
                var truncated = Array(full[..<cut])
                truncated[1] = UInt8(cut - 2)
                #expect(throws: HCIError.self) { try HCIEvent(packet: truncated) }
            }
            #expect(throws: Never.self) { try HCIEvent(packet: full) }
        }
    }
}
