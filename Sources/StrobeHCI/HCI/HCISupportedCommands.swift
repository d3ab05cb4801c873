/// The 64-octet Supported_Commands bitmap of Read Local Supported Commands
/// (Core Specification Vol 4, Part E, 6.27): one bit per command, addressed as octet and bit.
package struct HCISupportedCommands: Sendable, Hashable {
    /// The 64 octets as received.
    package private(set) var octets: [UInt8]

    package init(octets: [UInt8] = []) {
        var padded = Array(octets.prefix(64))
        padded.append(contentsOf: repeatElement(0, count: 64 - padded.count))
        self.octets = padded
    }

    /// One command's position in the bitmap.
    package struct Bit: Sendable, Hashable {
        package var octet: Int
        package var bit: Int
        package init(octet: Int, bit: Int) {
            self.octet = octet
            self.bit = bit
        }
    }

    package func contains(_ command: Bit) -> Bool {
        guard command.octet >= 0, command.octet < octets.count, command.bit >= 0, command.bit < 8 else {
            return false
        }
        return octets[command.octet] & (1 << command.bit) != 0
    }

    package mutating func insert(_ command: Bit) {
        guard command.octet >= 0, command.octet < octets.count, command.bit >= 0, command.bit < 8 else {
            return
        }
        octets[command.octet] |= 1 << command.bit
    }

    /// Whether the controller can use the extended advertising commands.
    package var supportsExtendedAdvertising: Bool {
        contains(.leSetExtendedAdvertisingParameters) && contains(.leSetExtendedAdvertisingData)
            && contains(.leSetExtendedAdvertisingEnable)
    }

    /// Whether the controller can use the extended scanning commands.
    package var supportsExtendedScanning: Bool {
        contains(.leSetExtendedScanParameters) && contains(.leSetExtendedScanEnable)
    }
}

extension HCISupportedCommands.Bit {
    package static let disconnect = Self(octet: 0, bit: 5)
    package static let readRemoteVersionInformation = Self(octet: 2, bit: 7)
    package static let setEventMask = Self(octet: 5, bit: 6)
    package static let reset = Self(octet: 5, bit: 7)
    package static let readLocalVersionInformation = Self(octet: 14, bit: 3)
    package static let readLocalSupportedFeatures = Self(octet: 14, bit: 5)
    package static let readBufferSize = Self(octet: 14, bit: 7)
    package static let readBDAddr = Self(octet: 15, bit: 1)
    package static let leSetEventMask = Self(octet: 25, bit: 0)
    package static let leReadBufferSizeV1 = Self(octet: 25, bit: 1)
    package static let leReadLocalSupportedFeatures = Self(octet: 25, bit: 2)
    package static let leSetAdvertisingParameters = Self(octet: 25, bit: 5)
    package static let leSetAdvertisingData = Self(octet: 25, bit: 7)
    package static let leSetScanResponseData = Self(octet: 26, bit: 0)
    package static let leSetAdvertisingEnable = Self(octet: 26, bit: 1)
    package static let leSetScanParameters = Self(octet: 26, bit: 2)
    package static let leSetScanEnable = Self(octet: 26, bit: 3)
    package static let leCreateConnection = Self(octet: 26, bit: 4)
    package static let leCreateConnectionCancel = Self(octet: 26, bit: 5)
    package static let leConnectionUpdate = Self(octet: 27, bit: 2)
    package static let leReadRemoteFeatures = Self(octet: 27, bit: 5)
    package static let leSetDataLength = Self(octet: 33, bit: 6)
    package static let leSetPHY = Self(octet: 35, bit: 6)
    package static let leSetExtendedScanParameters = Self(octet: 37, bit: 5)
    package static let leSetExtendedScanEnable = Self(octet: 37, bit: 6)
    package static let leExtendedCreateConnection = Self(octet: 37, bit: 7)
    package static let leReadBufferSizeV2 = Self(octet: 41, bit: 5)
    package static let leSetExtendedAdvertisingParameters = Self(octet: 36, bit: 1)
    package static let leSetExtendedAdvertisingData = Self(octet: 36, bit: 2)
    package static let leSetExtendedScanResponseData = Self(octet: 36, bit: 3)
    package static let leSetExtendedAdvertisingEnable = Self(octet: 36, bit: 4)
}
