/// The 64-octet Supported_Commands bitmap of Read Local Supported Commands
/// (Core Specification Vol 4, Part E, 6.27): one bit per command, addressed as octet and bit.
public struct HCISupportedCommands: Sendable, Hashable {
    /// The 64 octets as received.
    public private(set) var octets: [UInt8]

    public init(octets: [UInt8] = []) {
        var padded = Array(octets.prefix(64))
        padded.append(contentsOf: repeatElement(0, count: 64 - padded.count))
        self.octets = padded
    }

    /// One command's position in the bitmap.
    public struct Bit: Sendable, Hashable {
        public var octet: Int
        public var bit: Int
        public init(octet: Int, bit: Int) {
            self.octet = octet
            self.bit = bit
        }
    }

    public func contains(_ command: Bit) -> Bool {
        guard command.octet >= 0, command.octet < octets.count, command.bit >= 0, command.bit < 8 else {
            return false
        }
        return octets[command.octet] & (1 << command.bit) != 0
    }

    public mutating func insert(_ command: Bit) {
        guard command.octet >= 0, command.octet < octets.count, command.bit >= 0, command.bit < 8 else {
            return
        }
        octets[command.octet] |= 1 << command.bit
    }

    /// Whether the controller can use the extended advertising commands.
    public var supportsExtendedAdvertising: Bool {
        contains(.leSetExtendedAdvertisingParameters) && contains(.leSetExtendedAdvertisingData)
            && contains(.leSetExtendedAdvertisingEnable)
    }

    /// Whether the controller can use the extended scanning commands.
    public var supportsExtendedScanning: Bool {
        contains(.leSetExtendedScanParameters) && contains(.leSetExtendedScanEnable)
    }
}

extension HCISupportedCommands.Bit {
    public static let disconnect = Self(octet: 0, bit: 5)
    public static let readRemoteVersionInformation = Self(octet: 2, bit: 7)
    public static let setEventMask = Self(octet: 5, bit: 6)
    public static let reset = Self(octet: 5, bit: 7)
    public static let readLocalVersionInformation = Self(octet: 14, bit: 3)
    public static let readLocalSupportedFeatures = Self(octet: 14, bit: 5)
    public static let readBufferSize = Self(octet: 14, bit: 7)
    public static let readBDAddr = Self(octet: 15, bit: 1)
    public static let leSetEventMask = Self(octet: 25, bit: 0)
    public static let leReadBufferSizeV1 = Self(octet: 25, bit: 1)
    public static let leReadLocalSupportedFeatures = Self(octet: 25, bit: 2)
    public static let leSetAdvertisingParameters = Self(octet: 25, bit: 5)
    public static let leSetAdvertisingData = Self(octet: 25, bit: 7)
    public static let leSetScanResponseData = Self(octet: 26, bit: 0)
    public static let leSetAdvertisingEnable = Self(octet: 26, bit: 1)
    public static let leSetScanParameters = Self(octet: 26, bit: 2)
    public static let leSetScanEnable = Self(octet: 26, bit: 3)
    public static let leCreateConnection = Self(octet: 26, bit: 4)
    public static let leCreateConnectionCancel = Self(octet: 26, bit: 5)
    public static let leConnectionUpdate = Self(octet: 27, bit: 2)
    public static let leReadRemoteFeatures = Self(octet: 27, bit: 5)
    public static let leSetDataLength = Self(octet: 33, bit: 6)
    public static let leSetPHY = Self(octet: 35, bit: 6)
    public static let leSetExtendedScanParameters = Self(octet: 37, bit: 5)
    public static let leSetExtendedScanEnable = Self(octet: 37, bit: 6)
    public static let leExtendedCreateConnection = Self(octet: 37, bit: 7)
    public static let leReadBufferSizeV2 = Self(octet: 41, bit: 5)
    public static let leSetExtendedAdvertisingParameters = Self(octet: 36, bit: 1)
    public static let leSetExtendedAdvertisingData = Self(octet: 36, bit: 2)
    public static let leSetExtendedScanResponseData = Self(octet: 36, bit: 3)
    public static let leSetExtendedAdvertisingEnable = Self(octet: 36, bit: 4)
}
