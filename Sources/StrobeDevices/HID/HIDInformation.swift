/// The HID Information characteristic (`2A4A`, HIDS 1.0 3.6): the HID version the device
/// implements, its country code and whether it can wake the host and connects on its own.
public struct HIDInformation: Sendable, Hashable, CustomStringConvertible {
    /// bcdHID: the version in binary-coded decimal (0x0111 is 1.11).
    public var version: UInt16
    public var countryCode: UInt8
    public var remoteWake: Bool
    public var normallyConnectable: Bool

    public init(version: UInt16, countryCode: UInt8 = 0, remoteWake: Bool = false, normallyConnectable: Bool = false) {
        self.version = version
        self.countryCode = countryCode
        self.remoteWake = remoteWake
        self.normallyConnectable = normallyConnectable
    }

    /// Decodes the value: exactly four bytes (bcdHID little-endian, bCountryCode, Flags).
    public init(decoding bytes: [UInt8]) throws(HIDSetupError) {
        guard bytes.count == 4 else { throw .malformedInformation(length: bytes.count) }
        version = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
        countryCode = bytes[2]
        remoteWake = bytes[3] & 0x01 != 0
        normallyConnectable = bytes[3] & 0x02 != 0
    }

    public var encoded: [UInt8] {
        [UInt8(truncatingIfNeeded: version), UInt8(truncatingIfNeeded: version >> 8), countryCode,
         (remoteWake ? 0x01 : 0) | (normallyConnectable ? 0x02 : 0)]
    }

    /// "HID 1.11".
    public var description: String {
        "HID \((version >> 12 & 0xF) * 10 + (version >> 8 & 0xF)).\(version >> 4 & 0xF)\(version & 0xF)"
    }
}
