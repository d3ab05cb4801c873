/// A command opcode: a 6-bit Opcode Group Field and a 10-bit Opcode Command Field
/// (Core Specification Vol 4, Part E, 5.4.1).
public struct HCIOpcode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 16-bit opcode as a command packet carries it: OGF in the upper 6 bits, OCF in the lower 10.
    public var rawValue: UInt16

    /// From the 16-bit value, such as 0x200C for LE Set Scan Enable.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// From the group and command fields; bits beyond 6 (OGF) and 10 (OCF) are dropped.
    public init(ogf: UInt8, ocf: UInt16) {
        rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF)
    }

    /// The Opcode Group Field, such as 0x08 for the LE Controller commands.
    public var ogf: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 10) }
    /// The Opcode Command Field within the group.
    public var ocf: UInt16 { rawValue & 0x03FF }

    /// The spec's name when this opcode is one the stack knows, for messages and logs.
    public var name: String? { Self.names[rawValue] }

    /// `LE Set Scan Enable (0x200C)`, or just the number for an opcode the stack does not know.
    public var description: String {
        let hex = "0x" + String(rawValue, radix: 16, uppercase: true).leftPadded(to: 4)
        return name.map { "\($0) (\(hex))" } ?? hex
    }
}

extension HCIOpcode {
    /// The no-operation opcode a controller uses to hand out command credits on its own.
    public static let nop = HCIOpcode(rawValue: 0x0000)

    // Link Control (OGF 0x01)
    /// 0x0406 Disconnect.
    public static let disconnect = HCIOpcode(ogf: 0x01, ocf: 0x0006)
    /// 0x041D Read Remote Version Information.
    public static let readRemoteVersionInformation = HCIOpcode(ogf: 0x01, ocf: 0x001D)

    // Controller & Baseband (OGF 0x03)
    /// 0x0C01 Set Event Mask.
    public static let setEventMask = HCIOpcode(ogf: 0x03, ocf: 0x0001)
    /// 0x0C03 Reset.
    public static let reset = HCIOpcode(ogf: 0x03, ocf: 0x0003)

    // Informational parameters (OGF 0x04)
    /// 0x1001 Read Local Version Information.
    public static let readLocalVersionInformation = HCIOpcode(ogf: 0x04, ocf: 0x0001)
    /// 0x1002 Read Local Supported Commands.
    public static let readLocalSupportedCommands = HCIOpcode(ogf: 0x04, ocf: 0x0002)
    /// 0x1003 Read Local Supported Features.
    public static let readLocalSupportedFeatures = HCIOpcode(ogf: 0x04, ocf: 0x0003)
    /// 0x1005 Read Buffer Size.
    public static let readBufferSize = HCIOpcode(ogf: 0x04, ocf: 0x0005)
    /// 0x1009 Read BD_ADDR.
    public static let readBDAddr = HCIOpcode(ogf: 0x04, ocf: 0x0009)

    // LE Controller (OGF 0x08)
    /// 0x2001 LE Set Event Mask.
    public static let leSetEventMask = HCIOpcode(ogf: 0x08, ocf: 0x0001)
    /// 0x2002 LE Read Buffer Size [v1].
    public static let leReadBufferSizeV1 = HCIOpcode(ogf: 0x08, ocf: 0x0002)
    /// 0x2003 LE Read Local Supported Features.
    public static let leReadLocalSupportedFeatures = HCIOpcode(ogf: 0x08, ocf: 0x0003)
    /// 0x2005 LE Set Random Address.
    public static let leSetRandomAddress = HCIOpcode(ogf: 0x08, ocf: 0x0005)
    /// 0x2006 LE Set Advertising Parameters.
    public static let leSetAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0006)
    /// 0x2008 LE Set Advertising Data.
    public static let leSetAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0008)
    /// 0x2009 LE Set Scan Response Data.
    public static let leSetScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0009)
    /// 0x200A LE Set Advertising Enable.
    public static let leSetAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x000A)
    /// 0x200B LE Set Scan Parameters.
    public static let leSetScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x000B)
    /// 0x200C LE Set Scan Enable.
    public static let leSetScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x000C)
    /// 0x200D LE Create Connection.
    public static let leCreateConnection = HCIOpcode(ogf: 0x08, ocf: 0x000D)
    /// 0x200E LE Create Connection Cancel.
    public static let leCreateConnectionCancel = HCIOpcode(ogf: 0x08, ocf: 0x000E)
    /// 0x2013 LE Connection Update.
    public static let leConnectionUpdate = HCIOpcode(ogf: 0x08, ocf: 0x0013)
    /// 0x2016 LE Read Remote Features.
    public static let leReadRemoteFeatures = HCIOpcode(ogf: 0x08, ocf: 0x0016)
    /// 0x2019 LE Enable Encryption.
    public static let leEnableEncryption = HCIOpcode(ogf: 0x08, ocf: 0x0019)
    /// 0x201A LE Long Term Key Request Reply.
    public static let leLongTermKeyRequestReply = HCIOpcode(ogf: 0x08, ocf: 0x001A)
    /// 0x201B LE Long Term Key Request Negative Reply.
    public static let leLongTermKeyRequestNegativeReply = HCIOpcode(ogf: 0x08, ocf: 0x001B)
    /// 0x2020 LE Remote Connection Parameter Request Reply.
    public static let leRemoteConnectionParameterRequestReply = HCIOpcode(ogf: 0x08, ocf: 0x0020)
    /// 0x2021 LE Remote Connection Parameter Request Negative Reply.
    public static let leRemoteConnectionParameterRequestNegativeReply = HCIOpcode(ogf: 0x08, ocf: 0x0021)
    /// 0x2022 LE Set Data Length.
    public static let leSetDataLength = HCIOpcode(ogf: 0x08, ocf: 0x0022)
    /// 0x2030 LE Read PHY.
    public static let leReadPHY = HCIOpcode(ogf: 0x08, ocf: 0x0030)
    /// 0x2032 LE Set PHY.
    public static let leSetPHY = HCIOpcode(ogf: 0x08, ocf: 0x0032)
    /// 0x2041 LE Set Extended Scan Parameters.
    public static let leSetExtendedScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x0041)
    /// 0x2042 LE Set Extended Scan Enable.
    public static let leSetExtendedScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x0042)
    /// 0x2043 LE Extended Create Connection.
    public static let leExtendedCreateConnection = HCIOpcode(ogf: 0x08, ocf: 0x0043)
    /// 0x2060 LE Read Buffer Size [v2].
    public static let leReadBufferSizeV2 = HCIOpcode(ogf: 0x08, ocf: 0x0060)
    /// 0x2035 LE Set Advertising Set Random Address.
    public static let leSetAdvertisingSetRandomAddress = HCIOpcode(ogf: 0x08, ocf: 0x0035)
    /// 0x2036 LE Set Extended Advertising Parameters.
    public static let leSetExtendedAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0036)
    /// 0x2037 LE Set Extended Advertising Data.
    public static let leSetExtendedAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0037)
    /// 0x2038 LE Set Extended Scan Response Data.
    public static let leSetExtendedScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0038)
    /// 0x2039 LE Set Extended Advertising Enable.
    public static let leSetExtendedAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x0039)

    static let names: [UInt16: String] = [
        nop.rawValue: "NOP",
        disconnect.rawValue: "Disconnect",
        readRemoteVersionInformation.rawValue: "Read Remote Version Information",
        setEventMask.rawValue: "Set Event Mask",
        reset.rawValue: "Reset",
        readLocalVersionInformation.rawValue: "Read Local Version Information",
        readLocalSupportedCommands.rawValue: "Read Local Supported Commands",
        readLocalSupportedFeatures.rawValue: "Read Local Supported Features",
        readBufferSize.rawValue: "Read Buffer Size",
        readBDAddr.rawValue: "Read BD_ADDR",
        leSetEventMask.rawValue: "LE Set Event Mask",
        leReadBufferSizeV1.rawValue: "LE Read Buffer Size",
        leReadLocalSupportedFeatures.rawValue: "LE Read Local Supported Features",
        leSetRandomAddress.rawValue: "LE Set Random Address",
        leSetAdvertisingParameters.rawValue: "LE Set Advertising Parameters",
        leSetAdvertisingData.rawValue: "LE Set Advertising Data",
        leSetScanResponseData.rawValue: "LE Set Scan Response Data",
        leSetAdvertisingEnable.rawValue: "LE Set Advertising Enable",
        leSetScanParameters.rawValue: "LE Set Scan Parameters",
        leSetScanEnable.rawValue: "LE Set Scan Enable",
        leCreateConnection.rawValue: "LE Create Connection",
        leCreateConnectionCancel.rawValue: "LE Create Connection Cancel",
        leConnectionUpdate.rawValue: "LE Connection Update",
        leReadRemoteFeatures.rawValue: "LE Read Remote Features",
        leEnableEncryption.rawValue: "LE Enable Encryption",
        leLongTermKeyRequestReply.rawValue: "LE Long Term Key Request Reply",
        leLongTermKeyRequestNegativeReply.rawValue: "LE Long Term Key Request Negative Reply",
        leRemoteConnectionParameterRequestReply.rawValue: "LE Remote Connection Parameter Request Reply",
        leRemoteConnectionParameterRequestNegativeReply.rawValue: "LE Remote Connection Parameter Request Negative Reply",
        leSetDataLength.rawValue: "LE Set Data Length",
        leReadPHY.rawValue: "LE Read PHY",
        leSetPHY.rawValue: "LE Set PHY",
        leSetExtendedScanParameters.rawValue: "LE Set Extended Scan Parameters",
        leSetExtendedScanEnable.rawValue: "LE Set Extended Scan Enable",
        leExtendedCreateConnection.rawValue: "LE Extended Create Connection",
        leReadBufferSizeV2.rawValue: "LE Read Buffer Size [v2]",
        leSetAdvertisingSetRandomAddress.rawValue: "LE Set Advertising Set Random Address",
        leSetExtendedAdvertisingParameters.rawValue: "LE Set Extended Advertising Parameters",
        leSetExtendedAdvertisingData.rawValue: "LE Set Extended Advertising Data",
        leSetExtendedScanResponseData.rawValue: "LE Set Extended Scan Response Data",
        leSetExtendedAdvertisingEnable.rawValue: "LE Set Extended Advertising Enable",
    ]
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

/// Formats a byte or short as `0x0C` / `0x200C` for messages.
func hex<T: FixedWidthInteger>(_ value: T) -> String {
    "0x" + String(value, radix: 16, uppercase: true).leftPadded(to: MemoryLayout<T>.size * 2)
}
