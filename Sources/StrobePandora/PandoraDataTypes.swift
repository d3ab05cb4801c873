import Foundation
import GRPCCore
import Strobe

/// Advertising data (AD structures, Core Specification Supplement Part A) as Pandora's
/// `DataTypes` carries it: UUIDs as upper-case hex strings (16 and 32 bits without separators,
/// 128 bits as 8-4-4-4-12), manufacturer data whole (company ID first), the URI as its bytes.
package enum PandoraDataTypes {
    /// The fields of every well-formed AD structure in `bytes`; a malformed tail is dropped.
    package static func decode(_ bytes: [UInt8]) -> Pandora_DataTypes {
        var types = Pandora_DataTypes()
        var offset = 0
        while offset < bytes.count {
            let length = Int(bytes[offset])
            guard length > 0, offset + 1 + length <= bytes.count else { break }
            let type = bytes[offset + 1]
            let value = Array(bytes[(offset + 2)..<(offset + 1 + length)])
            add(type: type, value: value, to: &types)
            offset += 1 + length
        }
        return types
    }

    private static func add(type: UInt8, value: [UInt8], to types: inout Pandora_DataTypes) {
        switch type {
        case 0x01 where value.count >= 1:
            if value[0] & 0x01 != 0 { types.leDiscoverabilityMode = .discoverableLimited }
            else if value[0] & 0x02 != 0 { types.leDiscoverabilityMode = .discoverableGeneral }
        case 0x17: types.publicTargetAddresses += targets(value)
        case 0x18: types.randomTargetAddresses += targets(value)
        case 0x02: types.incompleteServiceClassUuids16 += uuids(value, width: 2)
        case 0x03: types.completeServiceClassUuids16 += uuids(value, width: 2)
        case 0x04: types.incompleteServiceClassUuids32 += uuids(value, width: 4)
        case 0x05: types.completeServiceClassUuids32 += uuids(value, width: 4)
        case 0x06: types.incompleteServiceClassUuids128 += uuids(value, width: 16)
        case 0x07: types.completeServiceClassUuids128 += uuids(value, width: 16)
        case 0x08: types.shortenedLocalName = String(decoding: value, as: UTF8.self)
        case 0x09: types.completeLocalName = String(decoding: value, as: UTF8.self)
        case 0x0A where value.count == 1: types.txPowerLevel = UInt32(value[0])
        case 0x0D where value.count == 3: types.classOfDevice = littleEndian(value)
        case 0x12 where value.count == 4:
            types.peripheralConnectionIntervalMin = littleEndian(Array(value[0..<2]))
            types.peripheralConnectionIntervalMax = littleEndian(Array(value[2..<4]))
        case 0x14: types.serviceSolicitationUuids16 += uuids(value, width: 2)
        case 0x1F: types.serviceSolicitationUuids32 += uuids(value, width: 4)
        case 0x15: types.serviceSolicitationUuids128 += uuids(value, width: 16)
        case 0x16 where value.count >= 2: types.serviceDataUuid16[uuid(value[0..<2])] = Data(value[2...])
        case 0x20 where value.count >= 4: types.serviceDataUuid32[uuid(value[0..<4])] = Data(value[4...])
        case 0x21 where value.count >= 16: types.serviceDataUuid128[uuid(value[0..<16])] = Data(value[16...])
        case 0x19 where value.count == 2: types.appearance = littleEndian(value)
        case 0x1A where value.count == 2: types.advertisingInterval = littleEndian(value)
        case 0x24: types.uri = String(decoding: value, as: UTF8.self)
        case 0x27: types.leSupportedFeatures = Data(value)
        case 0xFF: types.manufacturerSpecificData = Data(value)
        default: break
        }
    }

    /// AD structures for the fields set in `types`, with Flags first when a discoverability
    /// mode is asked for. Throws INVALID_ARGUMENT for a field longer than an AD structure holds,
    /// UNIMPLEMENTED for the fields that ask the device to fill in its own values.
    package static func encode(_ types: Pandora_DataTypes) throws -> [UInt8] {
        let own: [(String, Bool)] = [
            ("include_shortened_local_name", types.includeShortenedLocalName),
            ("include_complete_local_name", types.includeCompleteLocalName),
            ("include_tx_power_level", types.includeTxPowerLevel),
            ("include_class_of_device", types.includeClassOfDevice),
            ("include_advertising_interval", types.includeAdvertisingInterval),
        ]
        if let (name, _) = own.first(where: { $0.1 }) {
            throw RPCError(code: .unimplemented, message: "\(name) is not served: give the value itself")
        }
        var out: [UInt8] = []
        var tooLong: UInt8?
        func put(_ type: UInt8, _ value: [UInt8]) {
            guard value.count < 255 else {
                tooLong = type
                return
            }
            out += [UInt8(value.count + 1), type] + value
        }
        switch types.leDiscoverabilityMode {
        case .discoverableLimited: put(0x01, [0x01 | 0x04])
        case .discoverableGeneral: put(0x01, [0x02 | 0x04])
        default: break
        }
        let lists: [(UInt8, [String], Int)] = [
            (0x02, types.incompleteServiceClassUuids16, 2), (0x03, types.completeServiceClassUuids16, 2),
            (0x04, types.incompleteServiceClassUuids32, 4), (0x05, types.completeServiceClassUuids32, 4),
            (0x06, types.incompleteServiceClassUuids128, 16), (0x07, types.completeServiceClassUuids128, 16),
            (0x14, types.serviceSolicitationUuids16, 2), (0x1F, types.serviceSolicitationUuids32, 4),
            (0x15, types.serviceSolicitationUuids128, 16),
        ]
        for (type, strings, width) in lists where !strings.isEmpty {
            put(type, strings.flatMap { uuidBytes($0, width: width) ?? [] })
        }
        if case .shortenedLocalName(let name)? = types.shortenedLocalNameOneof { put(0x08, Array(name.utf8)) }
        if case .completeLocalName(let name)? = types.completeLocalNameOneof { put(0x09, Array(name.utf8)) }
        if case .txPowerLevel(let level)? = types.txPowerLevelOneof { put(0x0A, [UInt8(truncatingIfNeeded: level)]) }
        if case .classOfDevice(let value)? = types.classOfDeviceOneof { put(0x0D, littleEndianBytes(value, count: 3)) }
        if types.peripheralConnectionIntervalMin != 0 || types.peripheralConnectionIntervalMax != 0 {
            put(0x12, littleEndianBytes(types.peripheralConnectionIntervalMin, count: 2)
                + littleEndianBytes(types.peripheralConnectionIntervalMax, count: 2))
        }
        for (type, map, width) in [(UInt8(0x16), types.serviceDataUuid16, 2), (0x20, types.serviceDataUuid32, 4),
                                   (0x21, types.serviceDataUuid128, 16)] {
            for (key, value) in map.sorted(by: { $0.key < $1.key }) {
                if let uuid = uuidBytes(key, width: width) { put(type, uuid + Array(value)) }
            }
        }
        if types.appearance != 0 { put(0x19, littleEndianBytes(types.appearance, count: 2)) }
        if case .advertisingInterval(let value)? = types.advertisingIntervalOneof { put(0x1A, littleEndianBytes(value, count: 2)) }
        if !types.uri.isEmpty { put(0x24, Array(types.uri.utf8)) }
        if !types.leSupportedFeatures.isEmpty { put(0x27, Array(types.leSupportedFeatures)) }
        if !types.manufacturerSpecificData.isEmpty { put(0xFF, Array(types.manufacturerSpecificData)) }
        if !types.publicTargetAddresses.isEmpty { put(0x17, try addresses(types.publicTargetAddresses)) }
        if !types.randomTargetAddresses.isEmpty { put(0x18, try addresses(types.randomTargetAddresses)) }
        if let tooLong {
            throw RPCError(code: .invalidArgument, message: "the AD structure of type \(tooLong) would be longer than 254 bytes")
        }
        return out
    }

    /// Target addresses, each six bytes most significant first, as the AD structure carries
    /// them (least significant first).
    private static func addresses(_ list: [Data]) throws -> [UInt8] {
        try list.flatMap { bytes -> [UInt8] in
            guard bytes.count == 6 else { throw RPCError(code: .invalidArgument, message: "a target address is not six bytes") }
            return bytes.reversed()
        }
    }

    private static func targets(_ value: [UInt8]) -> [Data] {
        stride(from: 0, to: value.count - value.count % 6, by: 6).map { Data(value[$0..<($0 + 6)].reversed()) }
    }

    // MARK: UUID strings

    private static func uuids(_ value: [UInt8], width: Int) -> [String] {
        stride(from: 0, to: value.count - value.count % width, by: width).map { uuid(value[$0..<($0 + width)]) }
    }

    /// Little-endian UUID bytes as Pandora writes them.
    static func uuid(_ bytes: ArraySlice<UInt8>) -> String {
        let hex = bytes.reversed().map { byte in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
        guard bytes.count == 16 else { return hex }
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)])
        }
        return parts.joined(separator: "-")
    }

    /// The little-endian bytes of a UUID string of `width` bytes; nil when it is not one.
    static func uuidBytes(_ text: String, width: Int) -> [UInt8]? {
        let hex = Array(text.filter { $0 != "-" })
        guard hex.count == width * 2 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: hex.count, by: 2) {
            guard let byte = UInt8(String(hex[index...index + 1]), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes.reversed()
    }

    private static func littleEndian(_ bytes: [UInt8]) -> UInt32 {
        bytes.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    private static func littleEndianBytes(_ value: UInt32, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
    }
}
