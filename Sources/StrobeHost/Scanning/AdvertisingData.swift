import StrobeHCI

/// One AD structure of advertising or scan response data.
public enum AdvertisingDataStructure: Sendable, Hashable {
    /// The Flags AD structure (0x01): discoverable mode and BR/EDR support bits.
    case flags(AdvertisingFlags)
    /// A 16-, 32- or 128-bit service UUID list; `complete` says the list names every service.
    case serviceUUIDs([BluetoothUUID], width: BluetoothUUID.Width, complete: Bool)
    /// The complete or shortened local name.
    case localName(String, complete: Bool)
    /// The transmitted power level in dBm.
    case txPowerLevel(Int8)
    /// The external appearance (Assigned Numbers, Appearance Values).
    case appearance(UInt16)
    /// Manufacturer Specific Data (0xFF): a company identifier and its bytes.
    case manufacturerSpecificData(ManufacturerData)
    /// Service Data for a 16-, 32- or 128-bit service UUID (0x16, 0x20 or 0x21); `width` is the UUID
    /// size used on air.
    case serviceData(ServiceData, width: BluetoothUUID.Width)
    /// A type this parser does not interpret, kept as received.
    case other(type: AdvertisingDataType, data: [UInt8])
}

/// Why advertising data could not be parsed. Each case gives the byte offset of the AD
/// structure in question.
package enum AdvertisingDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The length byte announces more bytes than the data holds.
    case lengthExceedsData(offset: Int, length: Int, remaining: Int)
    /// The structure is shorter than its type needs.
    case fieldTooShort(offset: Int, type: AdvertisingDataType, length: Int, minimum: Int)
    /// A UUID list whose length is not a multiple of the UUID size.
    case uuidListLength(offset: Int, type: AdvertisingDataType, length: Int)

    /// Names the AD structure by byte offset and says what is wrong with it.
    package var description: String {
        switch self {
        case .lengthExceedsData(let offset, let length, let remaining):
            "AD structure at byte \(offset) claims \(length) bytes but only \(remaining) remain"
        case .fieldTooShort(let offset, let type, let length, let minimum):
            "\(type) at byte \(offset) has \(length) data bytes, needs at least \(minimum)"
        case .uuidListLength(let offset, let type, let length):
            "\(type) at byte \(offset) has \(length) data bytes, not a whole number of UUIDs"
        }
    }
}

/// Advertising or scan response data: a sequence of AD structures (Core Specification Vol 3,
/// Part C, 11), parsed from a borrowed buffer with every length checked.
public struct AdvertisingData: Sendable, Hashable {
    /// The AD structures in the order they appear on air.
    public var structures: [AdvertisingDataStructure]

    /// Creates advertising data from AD structures, e.g. to advertise them; `encoded` gives the bytes.
    public init(structures: [AdvertisingDataStructure] = []) { self.structures = structures }

    /// Parses the AD structures in `bytes`. A zero length octet ends the data (the rest is padding) and AD
    /// types without a case of their own become `.other`. Throws `AdvertisingDataError` when a length runs
    /// past the end, a structure is shorter than its type needs, or a UUID list is not whole UUIDs.
    package init(parsing bytes: UnsafeRawBufferPointer) throws(AdvertisingDataError) {
        var reader = ByteReader(bytes)
        var structures: [AdvertisingDataStructure] = []
        while let length = reader.readUInt8() {
            let offset = reader.offset - 1
            // A zero length ends the significant part; what follows is padding.
            if length == 0 { break }
            guard let body = reader.readView(count: Int(length)) else {
                throw .lengthExceedsData(offset: offset, length: Int(length), remaining: reader.remaining)
            }
            // The length counts the type byte, which is there since length >= 1.
            let type = AdvertisingDataType(rawValue: body[0])
            let data = UnsafeRawBufferPointer(rebasing: body[1...])
            structures.append(try Self.parseStructure(type: type, data: data, offset: offset))
        }
        self.structures = structures
    }

    /// Parses the AD structures in `bytes`, with the same rules and errors as `init(parsing:)`.
    package init(bytes: [UInt8]) throws(AdvertisingDataError) {
        let result: Result<AdvertisingData, AdvertisingDataError> = bytes.withUnsafeBytes { buffer in
            do throws(AdvertisingDataError) {
                return .success(try AdvertisingData(parsing: buffer))
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    private static func parseStructure(
        type: AdvertisingDataType, data: UnsafeRawBufferPointer, offset: Int
    ) throws(AdvertisingDataError) -> AdvertisingDataStructure {
        func require(_ minimum: Int) throws(AdvertisingDataError) {
            guard data.count >= minimum else {
                throw .fieldTooShort(offset: offset, type: type, length: data.count, minimum: minimum)
            }
        }
        func uuidList(_ width: BluetoothUUID.Width, complete: Bool) throws(AdvertisingDataError) -> AdvertisingDataStructure {
            guard data.count % width.byteCount == 0 else {
                throw .uuidListLength(offset: offset, type: type, length: data.count)
            }
            let uuids = stride(from: 0, to: data.count, by: width.byteCount).compactMap { start in
                BluetoothUUID(littleEndian: data[start..<start + width.byteCount])
            }
            return .serviceUUIDs(uuids, width: width, complete: complete)
        }
        func serviceData(_ width: BluetoothUUID.Width) throws(AdvertisingDataError) -> AdvertisingDataStructure {
            try require(width.byteCount)
            guard let uuid = BluetoothUUID(littleEndian: data[0..<width.byteCount]) else {
                throw .fieldTooShort(offset: offset, type: type, length: data.count, minimum: width.byteCount)
            }
            return .serviceData(ServiceData(uuid: uuid, data: Array(data[width.byteCount...])), width: width)
        }

        switch type {
        case .flags:
            try require(1)
            return .flags(AdvertisingFlags(rawValue: data[0]))
        case .incompleteServiceUUIDs16: return try uuidList(.bits16, complete: false)
        case .completeServiceUUIDs16: return try uuidList(.bits16, complete: true)
        case .incompleteServiceUUIDs32: return try uuidList(.bits32, complete: false)
        case .completeServiceUUIDs32: return try uuidList(.bits32, complete: true)
        case .incompleteServiceUUIDs128: return try uuidList(.bits128, complete: false)
        case .completeServiceUUIDs128: return try uuidList(.bits128, complete: true)
        case .shortenedLocalName, .completeLocalName:
            // Some devices pad the name with NULs; invalid UTF-8 is replaced, not rejected.
            var end = data.count
            while end > 0, data[end - 1] == 0 { end -= 1 }
            let name = String(decoding: data[0..<end], as: UTF8.self)
            return .localName(name, complete: type == .completeLocalName)
        case .txPowerLevel:
            try require(1)
            return .txPowerLevel(Int8(bitPattern: data[0]))
        case .appearance:
            try require(2)
            return .appearance(UInt16(data[0]) | UInt16(data[1]) << 8)
        case .manufacturerSpecificData:
            try require(2)
            return .manufacturerSpecificData(ManufacturerData(
                companyIdentifier: UInt16(data[0]) | UInt16(data[1]) << 8, data: Array(data[2...])))
        case .serviceData16: return try serviceData(.bits16)
        case .serviceData32: return try serviceData(.bits32)
        case .serviceData128: return try serviceData(.bits128)
        default:
            return .other(type: type, data: Array(data))
        }
    }

    /// The AD structures encoded back into bytes (for advertising, and to check round trips).
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        func append(_ type: AdvertisingDataType, _ data: [UInt8]) {
            bytes.append(UInt8(truncatingIfNeeded: data.count + 1))
            bytes.append(type.rawValue)
            bytes.append(contentsOf: data)
        }
        for structure in structures {
            switch structure {
            case .flags(let flags):
                append(.flags, [flags.rawValue])
            case .serviceUUIDs(let uuids, let width, let complete):
                let type: AdvertisingDataType = switch (width, complete) {
                case (.bits16, false): .incompleteServiceUUIDs16
                case (.bits16, true): .completeServiceUUIDs16
                case (.bits32, false): .incompleteServiceUUIDs32
                case (.bits32, true): .completeServiceUUIDs32
                case (.bits128, false): .incompleteServiceUUIDs128
                case (.bits128, true): .completeServiceUUIDs128
                }
                append(type, uuids.flatMap { $0.littleEndianBytes(width: width) })
            case .localName(let name, let complete):
                append(complete ? .completeLocalName : .shortenedLocalName, Array(name.utf8))
            case .txPowerLevel(let level):
                append(.txPowerLevel, [UInt8(bitPattern: level)])
            case .appearance(let appearance):
                append(.appearance, [UInt8(appearance & 0xFF), UInt8(appearance >> 8)])
            case .manufacturerSpecificData(let manufacturer):
                let company = manufacturer.companyIdentifier
                append(.manufacturerSpecificData, [UInt8(company & 0xFF), UInt8(company >> 8)] + manufacturer.data)
            case .serviceData(let service, let width):
                let type: AdvertisingDataType = switch width {
                case .bits16: .serviceData16
                case .bits32: .serviceData32
                case .bits128: .serviceData128
                }
                append(type, service.uuid.littleEndianBytes(width: width) + service.data)
            case .other(let type, let data):
                append(type, data)
            }
        }
        return bytes
    }

    // MARK: - What a scanner wants to know

    /// The bits of the first Flags structure, or nil when there is none.
    public var flags: AdvertisingFlags? {
        for case .flags(let flags) in structures { return flags }
        return nil
    }

    /// The complete local name if present, else the shortened one.
    public var localName: String? {
        var shortened: String?
        for case .localName(let name, let complete) in structures {
            if complete { return name }
            shortened = shortened ?? name
        }
        return shortened
    }

    /// Every service UUID listed, in order, without repeats.
    public var serviceUUIDs: [BluetoothUUID] {
        var seen = Set<BluetoothUUID>()
        var result: [BluetoothUUID] = []
        for case .serviceUUIDs(let uuids, _, _) in structures {
            for uuid in uuids where seen.insert(uuid).inserted { result.append(uuid) }
        }
        return result
    }

    /// Every Manufacturer Specific Data structure, in order.
    public var manufacturerData: [ManufacturerData] {
        structures.compactMap { if case .manufacturerSpecificData(let data) = $0 { data } else { nil } }
    }

    /// Every Service Data structure, of any UUID width, in order.
    public var serviceData: [ServiceData] {
        structures.compactMap { if case .serviceData(let data, _) = $0 { data } else { nil } }
    }

    /// The first Tx Power Level in dBm, or nil when none is present.
    public var txPowerLevel: Int8? {
        for case .txPowerLevel(let level) in structures { return level }
        return nil
    }

    /// The first Appearance value (Assigned Numbers, Appearance Values), or nil when none is present.
    public var appearance: UInt16? {
        for case .appearance(let appearance) in structures { return appearance }
        return nil
    }
}
