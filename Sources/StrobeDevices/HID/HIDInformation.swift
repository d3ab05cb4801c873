/// The HID Information characteristic (`2A4A`, HIDS 1.0 3.6): the HID version the device
/// implements, its country code and whether it can wake the host and connects on its own.
package struct HIDInformation: Sendable, Hashable, CustomStringConvertible {
    /// bcdHID: the version in binary-coded decimal (0x0111 is 1.11).
    package var version: UInt16
    package var countryCode: UInt8
    package var remoteWake: Bool
    package var normallyConnectable: Bool

    package init(version: UInt16, countryCode: UInt8 = 0, remoteWake: Bool = false, normallyConnectable: Bool = false) {
        self.version = version
        self.countryCode = countryCode
        self.remoteWake = remoteWake
        self.normallyConnectable = normallyConnectable
    }

    /// Decodes the value: exactly four bytes (bcdHID little-endian, bCountryCode, Flags).
    package init(decoding bytes: [UInt8]) throws(HIDError) {
        guard bytes.count == 4 else { throw .malformedInformation(length: bytes.count) }
        version = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
        countryCode = bytes[2]
        remoteWake = bytes[3] & 0x01 != 0
        normallyConnectable = bytes[3] & 0x02 != 0
    }

    package var encoded: [UInt8] {
        [UInt8(truncatingIfNeeded: version), UInt8(truncatingIfNeeded: version >> 8), countryCode,
         (remoteWake ? 0x01 : 0) | (normallyConnectable ? 0x02 : 0)]
    }

    /// "HID 1.11".
    package var description: String {
        "HID \((version >> 12 & 0xF) * 10 + (version >> 8 & 0xF)).\(version >> 4 & 0xF)\(version & 0xF)"
    }
}
