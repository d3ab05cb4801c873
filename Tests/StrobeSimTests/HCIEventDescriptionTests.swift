import Foundation
import Testing

import StrobeCapture
import StrobeHCI
import StrobeSim

/// Every HCI event the stack handles, from its one description (`walkParameters`), through the
/// encoder the simulated controller sends with, the decoder the host reads with, and a capture.
@Suite struct HCIEventDescriptionTests {
    static let peer = BluetoothAddress("C4:5E:00:00:00:09")!
    static let rpa = BluetoothAddress("4A:5E:00:00:00:0A")!

    /// One event of each case and form; the switch has no default, so a new case needs one here.
    static func examples(_ event: HCIEvent) -> [HCIEvent] {
        switch event {
        case .commandComplete:
            [.commandComplete(CommandCompleteEvent(numHCICommandPackets: 2, opcode: .leReadBufferSizeV1, returnParameters: [0x00, 0xFB, 0x00, 0x08]))]
        case .commandStatus: [.commandStatus(CommandStatusEvent(status: .commandDisallowed, numHCICommandPackets: 1, opcode: .leCreateConnection))]
        case .disconnectionComplete:
            [.disconnectionComplete(DisconnectionCompleteEvent(status: .success, connectionHandle: 0x0041, reason: .connectionTimeout))]
        case .numberOfCompletedPackets:
            [.numberOfCompletedPackets([CompletedPackets(connectionHandle: 0x0040, count: 3), CompletedPackets(connectionHandle: 0x0041, count: 7)])]
        case .readRemoteVersionInformationComplete:
            [.readRemoteVersionInformationComplete(ReadRemoteVersionInformationCompleteEvent(
                status: .success, connectionHandle: 0x0042, version: 0x0C, companyIdentifier: 0x005D, subversion: 0x1234))]
        case .hardwareError: [.hardwareError(code: 0x7E)]
        case .leConnectionComplete:
            [LEMetaSubevent.connectionComplete, LEMetaSubevent.enhancedConnectionCompleteV1, LEMetaSubevent.enhancedConnectionCompleteV2].map { subevent in
                let enhanced = subevent != LEMetaSubevent.connectionComplete
                let v2 = subevent == LEMetaSubevent.enhancedConnectionCompleteV2
                return .leConnectionComplete(LEConnectionCompleteEvent(
                    subevent: subevent, status: .success, connectionHandle: 0x0043, role: .peripheral, peerAddressType: .random,
                    peerAddress: peer, localResolvablePrivateAddress: enhanced ? rpa : nil, peerResolvablePrivateAddress: enhanced ? rpa : nil,
                    connectionInterval: 0x0018, peripheralLatency: 0x0002, supervisionTimeout: 0x01F4, centralClockAccuracy: 0x05,
                    advertisingHandle: v2 ? 0x01 : nil, syncHandle: v2 ? 0x0FFF : nil))
            }
        case .leAdvertisingReport:
            [.leAdvertisingReport([
                LEAdvertisingReport(eventType: .advInd, addressType: .random, address: peer, data: [0x02, 0x01, 0x06], rssi: -60),
                LEAdvertisingReport(eventType: .scanRsp, addressType: .public, address: rpa, data: [], rssi: nil),
            ])]
        case .leExtendedAdvertisingReport:
            [.leExtendedAdvertisingReport([LEExtendedAdvertisingReport(
                eventType: .init(rawValue: 0x0013), addressType: .random, address: peer, primaryPHY: .le1M, secondaryPHY: .le2M,
                advertisingSID: 3, txPower: -4, rssi: nil, periodicAdvertisingInterval: 0x0010, directAddressType: .public,
                directAddress: rpa, data: Array(0x10...0x40))])]
        case .leConnectionUpdateComplete:
            [.leConnectionUpdateComplete(LEConnectionUpdateCompleteEvent(
                status: .success, connectionHandle: 0x0044, connectionInterval: 0x0028, peripheralLatency: 1, supervisionTimeout: 0x0190))]
        case .leRemoteConnectionParameterRequest:
            [.leRemoteConnectionParameterRequest(LERemoteConnectionParameterRequestEvent(
                connectionHandle: 0x0045, intervalMin: 0x0018, intervalMax: 0x0028, maxLatency: 4, supervisionTimeout: 0x0258))]
        case .leReadRemoteFeaturesComplete:
            [.leReadRemoteFeaturesComplete(LEReadRemoteFeaturesCompleteEvent(
                status: .success, connectionHandle: 0x0046, features: [.dataPacketLengthExtension, .le2MPHY]))]
        case .leDataLengthChange:
            [.leDataLengthChange(LEDataLengthChangeEvent(connectionHandle: 0x0047, maxTxOctets: 251, maxTxTime: 2120, maxRxOctets: 27, maxRxTime: 328))]
        case .lePHYUpdateComplete:
            [.lePHYUpdateComplete(LEPHYUpdateCompleteEvent(status: .success, connectionHandle: 0x0048, txPHY: .le2M, rxPHY: .le1M))]
        case .encryptionChange:
            [.encryptionChange(EncryptionChangeEvent(status: .success, connectionHandle: 0x0049, enabled: true)),
             .encryptionChange(EncryptionChangeEvent(status: .pinOrKeyMissing, connectionHandle: 0x0049, enabled: false, keySize: 16)),
             .encryptionChange(EncryptionChangeEvent(status: .success, connectionHandle: 0x0049, enabled: true, isKeyRefresh: true))]
        case .leLongTermKeyRequest:
            [.leLongTermKeyRequest(LELongTermKeyRequestEvent(connectionHandle: 0x004A, random: 0xA0A1_A2A3_A4A5_A6A7, encryptedDiversifier: 0xB1B2))]
        case .unknown: [.unknown(code: 0xFF, parameters: [0x01, 0x02])]
        case .unknownLEMeta: [.unknownLEMeta(subevent: 0x3F, parameters: [0x03])]
        }
    }

    /// One value of each case, to reach every `examples` branch.
    static let cases: [HCIEvent] = [
        .commandComplete(CommandCompleteEvent()), .commandStatus(CommandStatusEvent()), .disconnectionComplete(DisconnectionCompleteEvent()),
        .numberOfCompletedPackets([]), .readRemoteVersionInformationComplete(ReadRemoteVersionInformationCompleteEvent()),
        .hardwareError(code: 0), .leConnectionComplete(LEConnectionCompleteEvent()), .leAdvertisingReport([]),
        .leExtendedAdvertisingReport([]), .leConnectionUpdateComplete(LEConnectionUpdateCompleteEvent()),
        .leRemoteConnectionParameterRequest(LERemoteConnectionParameterRequestEvent()),
        .leReadRemoteFeaturesComplete(LEReadRemoteFeaturesCompleteEvent()), .leDataLengthChange(LEDataLengthChangeEvent()),
        .lePHYUpdateComplete(LEPHYUpdateCompleteEvent()), .encryptionChange(EncryptionChangeEvent()),
        .leLongTermKeyRequest(LELongTermKeyRequestEvent()), .unknown(code: 0, parameters: []), .unknownLEMeta(subevent: 0, parameters: []),
    ]

    static var all: [HCIEvent] { cases.flatMap(examples) }

    @Test func eachEventDecodesToWhatWasEncoded() throws {
        for event in Self.all {
            let packet = event.packet
            #expect(Int(packet[1]) == packet.count - 2, "\(event.name)")
            #expect(try HCIEvent(packet: packet) == event, "\(event.name)")
        }
    }

    /// One byte short is malformed (not read past); one byte more is ignored, as a later
    /// version of the specification may append parameters.
    @Test func aShortEventIsMalformedAndALongerOneIsRead() throws {
        for event in Self.all {
            switch event {
            case .commandComplete, .unknown, .unknownLEMeta: continue  // their last field is the rest
            default: break
            }
            var short = Array(event.packet.dropLast())
            short[1] -= 1
            #expect(throws: HCIError.self, "\(event.name)") { try HCIEvent(packet: short) }
            switch event {
            case .numberOfCompletedPackets, .leAdvertisingReport, .leExtendedAdvertisingReport: continue  // counted lists
            default: break
            }
            var long = event.packet + [0xEE]
            long[1] += 1
            #expect(try HCIEvent(packet: long) == event, "\(event.name)")
        }
    }

    /// What the simulated controller sends is each event's description, as the host reads it.
    @Test func theSimulatedControllerSendsEventsByTheirDescription() throws {
        func decoded(_ h4: [UInt8]) throws -> HCIEvent {
            #expect(h4.first == HCIPacketType.event.rawValue)
            return try HCIEvent(packet: Array(h4.dropFirst()))
        }
        #expect(try decoded(SimEvents.commandComplete(opcode: 0x2002, status: .success, returnParameters: [0xFB, 0x00, 0x08]))
            == .commandComplete(CommandCompleteEvent(numHCICommandPackets: 1, opcode: .leReadBufferSizeV1, returnParameters: [0x00, 0xFB, 0x00, 0x08])))
        #expect(try decoded(SimEvents.commandStatus(opcode: 0x0406, status: .unknownConnectionIdentifier))
            == .commandStatus(CommandStatusEvent(status: .unknownConnectionIdentifier, numHCICommandPackets: 1, opcode: .disconnect)))
        #expect(try decoded(SimEvents.disconnectionComplete(handle: 0x41, reason: .connectionTimeout))
            == .disconnectionComplete(DisconnectionCompleteEvent(status: .success, connectionHandle: 0x41, reason: .connectionTimeout)))
        #expect(try decoded(SimEvents.numberOfCompletedPackets(handle: 0x40, count: 3))
            == .numberOfCompletedPackets([CompletedPackets(connectionHandle: 0x40, count: 3)]))
        #expect(try decoded(SimEvents.advertisingReport(eventType: 0x00, address: Self.peer, addressType: 1, data: [0x02, 0x01, 0x06], rssi: -60))
            == .leAdvertisingReport([LEAdvertisingReport(eventType: .advInd, addressType: .random, address: Self.peer, data: [0x02, 0x01, 0x06], rssi: -60)]))
        #expect(try decoded(SimEvents.leConnectionComplete(status: .success, handle: 0x43, role: .peripheral, peer: Self.peer, peerType: 1,
                                                           interval: 0x18, latency: 2, timeout: 0x1F4))
            == .leConnectionComplete(LEConnectionCompleteEvent(
                subevent: LEMetaSubevent.connectionComplete, status: .success, connectionHandle: 0x43, role: .peripheral, peerAddressType: .random,
                peerAddress: Self.peer, connectionInterval: 0x18, peripheralLatency: 2, supervisionTimeout: 0x1F4, centralClockAccuracy: 0)))
        #expect(try decoded(SimEvents.encryptionChange(status: .success, handle: 0x49, enabled: true))
            == .encryptionChange(EncryptionChangeEvent(status: .success, connectionHandle: 0x49, enabled: true)))
        #expect(try decoded(SimEvents.encryptionKeyRefreshComplete(status: .success, handle: 0x49))
            == .encryptionChange(EncryptionChangeEvent(status: .success, connectionHandle: 0x49, enabled: true, isKeyRefresh: true)))
        #expect(try decoded(SimEvents.longTermKeyRequest(handle: 0x4A, random: 0xA0A1_A2A3_A4A5_A6A7, ediv: 0xB1B2))
            == .leLongTermKeyRequest(LELongTermKeyRequestEvent(connectionHandle: 0x4A, random: 0xA0A1_A2A3_A4A5_A6A7, encryptedDiversifier: 0xB1B2)))
        #expect(try decoded(SimEvents.leConnectionUpdateComplete(status: .success, handle: 0x44, interval: 0x28, latency: 1, timeout: 0x190))
            == .leConnectionUpdateComplete(LEConnectionUpdateCompleteEvent(
                status: .success, connectionHandle: 0x44, connectionInterval: 0x28, peripheralLatency: 1, supervisionTimeout: 0x190)))
        let parameters = LEConnectionParameters(intervalMin: 0x18, intervalMax: 0x28, maxLatency: 4, supervisionTimeout: 0x258)
        #expect(try decoded(SimEvents.remoteConnectionParameterRequest(handle: 0x45, parameters: parameters))
            == .leRemoteConnectionParameterRequest(LERemoteConnectionParameterRequestEvent(
                connectionHandle: 0x45, intervalMin: 0x18, intervalMax: 0x28, maxLatency: 4, supervisionTimeout: 0x258)))
    }

    /// Each event in a capture is decoded as the host decodes it: its name and fields, nothing
    /// left undecoded.
    @Test func aCaptureShowsEachEventByItsFields() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hci-events-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BtsnoopWriter(path: path)
        let at = BtsnoopTimestamp(unixMicroseconds: 1_700_000_000_000_000)
        for event in Self.all { try writer.write(.event, direction: .controllerToHost, payload: event.packet, at: at) }
        try writer.close()
        let decoder = try CaptureRecordDecoder(path: path)
        for event in Self.all {
            let record = try #require(try decoder.next())
            let layer = try #require(record.layers.last)
            #expect(record.undecoded == nil, "\(event.name)")
            #expect(!layer.fields.isEmpty && !layer.fields.contains { $0.name == "malformed" }, "\(event.name)")
            #expect(layer.title.contains(event.name), "\(layer.title)")
        }
    }
}
