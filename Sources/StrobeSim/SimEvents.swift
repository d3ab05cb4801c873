import StrobeHCI

/// HCI events a virtual controller sends, as H4 packets (type byte first).
enum SimEvents {
    private static func event(_ code: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        [HCIPacketType.event.rawValue, code, UInt8(parameters.count)] + parameters
    }

    private static func le(_ subevent: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        event(0x3E, [subevent] + parameters)
    }

    private static func u16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    private static func address(_ address: BluetoothAddress) -> [UInt8] {
        var writer = ByteWriter(capacity: 6)
        writer.write(address)
        return writer.bytes
    }

    /// Command Complete, one more command allowed.
    static func commandComplete(opcode: UInt16, status: HCIStatus, returnParameters: [UInt8]) -> [UInt8] {
        event(0x0E, [1] + u16(opcode) + [status.rawValue] + returnParameters)
    }

    static func commandStatus(opcode: UInt16, status: HCIStatus) -> [UInt8] {
        event(0x0F, [status.rawValue, 1] + u16(opcode))
    }

    static func disconnectionComplete(handle: UInt16, reason: HCIStatus) -> [UInt8] {
        event(0x05, [0] + u16(handle) + [reason.rawValue])
    }

    static func numberOfCompletedPackets(handle: UInt16, count: Int) -> [UInt8] {
        event(0x13, [1] + u16(handle) + u16(UInt16(count)))
    }

    /// LE Advertising Report with one report.
    static func advertisingReport(eventType: UInt8, address: BluetoothAddress, addressType: UInt8, data: [UInt8], rssi: Int8) -> [UInt8] {
        le(0x02, [1, eventType, addressType] + Self.address(address) + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)])
    }

    static func leConnectionComplete(status: HCIStatus, handle: UInt16, role: UInt8, peer: BluetoothAddress, peerType: UInt8,
                                     interval: UInt16, latency: UInt16, timeout: UInt16) -> [UInt8] {
        le(0x01, [status.rawValue] + u16(handle) + [role, peerType] + address(peer) + u16(interval) + u16(latency) + u16(timeout) + [0])
    }

    static func encryptionChange(status: HCIStatus, handle: UInt16, enabled: Bool) -> [UInt8] {
        event(0x08, [status.rawValue] + u16(handle) + [enabled ? 1 : 0])
    }

    static func encryptionKeyRefreshComplete(status: HCIStatus, handle: UInt16) -> [UInt8] {
        event(0x30, [status.rawValue] + u16(handle))
    }

    static func longTermKeyRequest(handle: UInt16, random: [UInt8], ediv: UInt16) -> [UInt8] {
        le(0x05, u16(handle) + random + u16(ediv))
    }

    static func leConnectionUpdateComplete(status: HCIStatus = .success, handle: UInt16, interval: UInt16, latency: UInt16,
                                           timeout: UInt16) -> [UInt8] {
        le(0x03, [status.rawValue] + u16(handle) + u16(interval) + u16(latency) + u16(timeout))
    }

    static func remoteConnectionParameterRequest(handle: UInt16, parameters: LEConnectionParameters) -> [UInt8] {
        le(0x06, u16(handle) + u16(parameters.intervalMin) + u16(parameters.intervalMax) + u16(parameters.maxLatency)
            + u16(parameters.supervisionTimeout))
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
