import StrobeHCI

/// HCI events a virtual controller sends, as H4 packets (type byte first), each encoded from its
/// one description (`HCIEvent.packet`), as the host decodes it.
package enum SimEvents {
    private static func h4(_ event: HCIEvent) -> [UInt8] {
        [HCIPacketType.event.rawValue] + event.packet
    }

    /// Command Complete, `credits` more commands allowed (one unless a defect withholds them).
    package static func commandComplete(opcode: UInt16, status: HCIStatus, returnParameters: [UInt8], credits: UInt8 = 1) -> [UInt8] {
        h4(.commandComplete(CommandCompleteEvent(numHCICommandPackets: credits, opcode: HCIOpcode(rawValue: opcode),
                                                 returnParameters: [status.rawValue] + returnParameters)))
    }

    package static func commandStatus(opcode: UInt16, status: HCIStatus, credits: UInt8 = 1) -> [UInt8] {
        h4(.commandStatus(CommandStatusEvent(status: status, numHCICommandPackets: credits, opcode: HCIOpcode(rawValue: opcode))))
    }

    package static func disconnectionComplete(handle: UInt16, reason: HCIStatus) -> [UInt8] {
        h4(.disconnectionComplete(DisconnectionCompleteEvent(status: .success, connectionHandle: ConnectionHandle(handle), reason: reason)))
    }

    package static func numberOfCompletedPackets(handle: UInt16, count: Int) -> [UInt8] {
        h4(.numberOfCompletedPackets([CompletedPackets(connectionHandle: ConnectionHandle(handle), count: UInt16(count))]))
    }

    /// LE Advertising Report with one report.
    package static func advertisingReport(eventType: UInt8, address: BluetoothAddress, addressType: UInt8, data: [UInt8], rssi: Int8) -> [UInt8] {
        h4(.leAdvertisingReport([LEAdvertisingReport(
            eventType: .init(rawValue: eventType), addressType: LEAddressType(rawValue: addressType), address: address, data: data,
            rssi: rssi == 127 ? nil : rssi)]))
    }

    package static func leConnectionComplete(status: HCIStatus, handle: UInt16, role: LERole, peer: BluetoothAddress, peerType: UInt8,
                                     interval: UInt16, latency: UInt16, timeout: UInt16) -> [UInt8] {
        h4(.leConnectionComplete(LEConnectionCompleteEvent(
            subevent: LEMetaSubevent.connectionComplete, status: status, connectionHandle: ConnectionHandle(handle), role: role,
            peerAddressType: LEAddressType(rawValue: peerType), peerAddress: peer, connectionInterval: interval,
            peripheralLatency: latency, supervisionTimeout: timeout, centralClockAccuracy: 0)))
    }

    package static func encryptionChange(status: HCIStatus, handle: UInt16, enabled: Bool) -> [UInt8] {
        h4(.encryptionChange(EncryptionChangeEvent(status: status, connectionHandle: ConnectionHandle(handle), enabled: enabled)))
    }

    package static func encryptionKeyRefreshComplete(status: HCIStatus, handle: UInt16) -> [UInt8] {
        h4(.encryptionChange(EncryptionChangeEvent(status: status, connectionHandle: ConnectionHandle(handle), enabled: true,
                                                   isKeyRefresh: true)))
    }

    package static func longTermKeyRequest(handle: UInt16, random: UInt64, ediv: UInt16) -> [UInt8] {
        h4(.leLongTermKeyRequest(LELongTermKeyRequestEvent(connectionHandle: ConnectionHandle(handle), random: random,
                                                           encryptedDiversifier: ediv)))
    }

    package static func leConnectionUpdateComplete(status: HCIStatus = .success, handle: UInt16, interval: UInt16, latency: UInt16,
                                           timeout: UInt16) -> [UInt8] {
        h4(.leConnectionUpdateComplete(LEConnectionUpdateCompleteEvent(
            status: status, connectionHandle: ConnectionHandle(handle), connectionInterval: interval, peripheralLatency: latency,
            supervisionTimeout: timeout)))
    }

    package static func remoteConnectionParameterRequest(handle: UInt16, parameters: LEConnectionParameters) -> [UInt8] {
        h4(.leRemoteConnectionParameterRequest(LERemoteConnectionParameterRequestEvent(
            connectionHandle: ConnectionHandle(handle), intervalMin: parameters.intervalMin, intervalMax: parameters.intervalMax,
            maxLatency: parameters.maxLatency, supervisionTimeout: parameters.supervisionTimeout)))
    }
}

/// The commands a virtual controller answers, as Read Local Supported Commands reports them.
enum SimSupportedCommands {
    static let bits: [HCISupportedCommands.Bit] = [
        .disconnect, .setEventMask, .reset, .readLocalVersionInformation, .readLocalSupportedFeatures, .readBufferSize,
        .readBDAddr, .leSetEventMask, .leReadBufferSizeV1, .leReadLocalSupportedFeatures, .leSetAdvertisingParameters,
        .leSetAdvertisingData, .leSetScanResponseData, .leSetAdvertisingEnable, .leSetScanParameters, .leSetScanEnable,
        .leCreateConnection, .leCreateConnectionCancel, .leConnectionUpdate,
    ]

    static let bitmap: [UInt8] = {
        var bitmap = [UInt8](repeating: 0, count: 64)
        for bit in bits { bitmap[bit.octet] |= 1 << bit.bit }
        // Read Local Supported Commands itself (octet 14, bit 4), LE Set Random Address (25, 4).
        bitmap[14] |= 1 << 4
        bitmap[25] |= 1 << 4
        return bitmap
    }()
}
