/// An HCI status / error code (Core Specification Vol 1, Part F, 1.3). Zero is success; every
/// other value is an error whose name is the spec's. Unknown values keep their number.
public struct HCIStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var isSuccess: Bool { rawValue == 0 }

    /// The spec's name, or `nil` for a code it does not assign.
    public var assignedName: String? { Int(rawValue) < Self.names.count ? Self.names[Int(rawValue)] : nil }

    /// The spec's name, or `Unknown status` for a code it does not assign.
    public var name: String { assignedName ?? "Unknown status" }

    /// `Connection Timeout (0x08)`.
    public var description: String { "\(name) (\(hex(rawValue)))" }

    public static let success = HCIStatus(rawValue: 0x00)
    public static let unknownHCICommand = HCIStatus(rawValue: 0x01)
    public static let unknownConnectionIdentifier = HCIStatus(rawValue: 0x02)
    public static let hardwareFailure = HCIStatus(rawValue: 0x03)
    public static let pageTimeout = HCIStatus(rawValue: 0x04)
    public static let authenticationFailure = HCIStatus(rawValue: 0x05)
    public static let pinOrKeyMissing = HCIStatus(rawValue: 0x06)
    public static let memoryCapacityExceeded = HCIStatus(rawValue: 0x07)
    public static let connectionTimeout = HCIStatus(rawValue: 0x08)
    public static let connectionLimitExceeded = HCIStatus(rawValue: 0x09)
    public static let synchronousConnectionLimitExceeded = HCIStatus(rawValue: 0x0A)
    public static let connectionAlreadyExists = HCIStatus(rawValue: 0x0B)
    public static let commandDisallowed = HCIStatus(rawValue: 0x0C)
    public static let connectionRejectedLimitedResources = HCIStatus(rawValue: 0x0D)
    public static let connectionRejectedSecurityReasons = HCIStatus(rawValue: 0x0E)
    public static let connectionRejectedUnacceptableBDAddr = HCIStatus(rawValue: 0x0F)
    public static let connectionAcceptTimeoutExceeded = HCIStatus(rawValue: 0x10)
    public static let unsupportedFeatureOrParameterValue = HCIStatus(rawValue: 0x11)
    public static let invalidHCICommandParameters = HCIStatus(rawValue: 0x12)
    public static let remoteUserTerminatedConnection = HCIStatus(rawValue: 0x13)
    public static let remoteDeviceTerminatedLowResources = HCIStatus(rawValue: 0x14)
    public static let remoteDeviceTerminatedPowerOff = HCIStatus(rawValue: 0x15)
    public static let connectionTerminatedByLocalHost = HCIStatus(rawValue: 0x16)
    public static let repeatedAttempts = HCIStatus(rawValue: 0x17)
    public static let pairingNotAllowed = HCIStatus(rawValue: 0x18)
    public static let unknownLMPPDU = HCIStatus(rawValue: 0x19)
    public static let unsupportedRemoteFeature = HCIStatus(rawValue: 0x1A)
    public static let scoOffsetRejected = HCIStatus(rawValue: 0x1B)
    public static let scoIntervalRejected = HCIStatus(rawValue: 0x1C)
    public static let scoAirModeRejected = HCIStatus(rawValue: 0x1D)
    public static let invalidLMPOrLLParameters = HCIStatus(rawValue: 0x1E)
    public static let unspecifiedError = HCIStatus(rawValue: 0x1F)
    public static let unsupportedLMPOrLLParameterValue = HCIStatus(rawValue: 0x20)
    public static let roleChangeNotAllowed = HCIStatus(rawValue: 0x21)
    public static let lmpOrLLResponseTimeout = HCIStatus(rawValue: 0x22)
    public static let lmpTransactionOrLLProcedureCollision = HCIStatus(rawValue: 0x23)
    public static let lmpPDUNotAllowed = HCIStatus(rawValue: 0x24)
    public static let encryptionModeNotAcceptable = HCIStatus(rawValue: 0x25)
    public static let linkKeyCannotBeChanged = HCIStatus(rawValue: 0x26)
    public static let requestedQoSNotSupported = HCIStatus(rawValue: 0x27)
    public static let instantPassed = HCIStatus(rawValue: 0x28)
    public static let pairingWithUnitKeyNotSupported = HCIStatus(rawValue: 0x29)
    public static let differentTransactionCollision = HCIStatus(rawValue: 0x2A)
    public static let qosUnacceptableParameter = HCIStatus(rawValue: 0x2C)
    public static let qosRejected = HCIStatus(rawValue: 0x2D)
    public static let channelClassificationNotSupported = HCIStatus(rawValue: 0x2E)
    public static let insufficientSecurity = HCIStatus(rawValue: 0x2F)
    public static let parameterOutOfMandatoryRange = HCIStatus(rawValue: 0x30)
    public static let roleSwitchPending = HCIStatus(rawValue: 0x32)
    public static let reservedSlotViolation = HCIStatus(rawValue: 0x34)
    public static let roleSwitchFailed = HCIStatus(rawValue: 0x35)
    public static let extendedInquiryResponseTooLarge = HCIStatus(rawValue: 0x36)
    public static let secureSimplePairingNotSupportedByHost = HCIStatus(rawValue: 0x37)
    public static let hostBusyPairing = HCIStatus(rawValue: 0x38)
    public static let connectionRejectedNoSuitableChannelFound = HCIStatus(rawValue: 0x39)
    public static let controllerBusy = HCIStatus(rawValue: 0x3A)
    public static let unacceptableConnectionParameters = HCIStatus(rawValue: 0x3B)
    public static let advertisingTimeout = HCIStatus(rawValue: 0x3C)
    public static let connectionTerminatedMICFailure = HCIStatus(rawValue: 0x3D)
    public static let connectionFailedToBeEstablished = HCIStatus(rawValue: 0x3E)
    public static let macConnectionFailed = HCIStatus(rawValue: 0x3F)
    public static let coarseClockAdjustmentRejected = HCIStatus(rawValue: 0x40)
    public static let type0SubmapNotDefined = HCIStatus(rawValue: 0x41)
    public static let unknownAdvertisingIdentifier = HCIStatus(rawValue: 0x42)
    public static let limitReached = HCIStatus(rawValue: 0x43)
    public static let operationCancelledByHost = HCIStatus(rawValue: 0x44)
    public static let packetTooLong = HCIStatus(rawValue: 0x45)

    /// Names indexed by code; `nil` where the spec reserves the value.
    static let names: [String?] = {
        var table = [String?](repeating: nil, count: 0x46)
        table[0x00] = "Success"
        table[0x01] = "Unknown HCI Command"
        table[0x02] = "Unknown Connection Identifier"
        table[0x03] = "Hardware Failure"
        table[0x04] = "Page Timeout"
        table[0x05] = "Authentication Failure"
        table[0x06] = "PIN or Key Missing"
        table[0x07] = "Memory Capacity Exceeded"
        table[0x08] = "Connection Timeout"
        table[0x09] = "Connection Limit Exceeded"
        table[0x0A] = "Synchronous Connection Limit To A Device Exceeded"
        table[0x0B] = "Connection Already Exists"
        table[0x0C] = "Command Disallowed"
        table[0x0D] = "Connection Rejected due to Limited Resources"
        table[0x0E] = "Connection Rejected Due To Security Reasons"
        table[0x0F] = "Connection Rejected due to Unacceptable BD_ADDR"
        table[0x10] = "Connection Accept Timeout Exceeded"
        table[0x11] = "Unsupported Feature or Parameter Value"
        table[0x12] = "Invalid HCI Command Parameters"
        table[0x13] = "Remote User Terminated Connection"
        table[0x14] = "Remote Device Terminated Connection due to Low Resources"
        table[0x15] = "Remote Device Terminated Connection due to Power Off"
        table[0x16] = "Connection Terminated By Local Host"
        table[0x17] = "Repeated Attempts"
        table[0x18] = "Pairing Not Allowed"
        table[0x19] = "Unknown LMP PDU"
        table[0x1A] = "Unsupported Remote Feature"
        table[0x1B] = "SCO Offset Rejected"
        table[0x1C] = "SCO Interval Rejected"
        table[0x1D] = "SCO Air Mode Rejected"
        table[0x1E] = "Invalid LMP Parameters / Invalid LL Parameters"
        table[0x1F] = "Unspecified Error"
        table[0x20] = "Unsupported LMP Parameter Value / Unsupported LL Parameter Value"
        table[0x21] = "Role Change Not Allowed"
        table[0x22] = "LMP Response Timeout / LL Response Timeout"
        table[0x23] = "LMP Error Transaction Collision / LL Procedure Collision"
        table[0x24] = "LMP PDU Not Allowed"
        table[0x25] = "Encryption Mode Not Acceptable"
        table[0x26] = "Link Key cannot be Changed"
        table[0x27] = "Requested QoS Not Supported"
        table[0x28] = "Instant Passed"
        table[0x29] = "Pairing With Unit Key Not Supported"
        table[0x2A] = "Different Transaction Collision"
        table[0x2C] = "QoS Unacceptable Parameter"
        table[0x2D] = "QoS Rejected"
        table[0x2E] = "Channel Classification Not Supported"
        table[0x2F] = "Insufficient Security"
        table[0x30] = "Parameter Out Of Mandatory Range"
        table[0x32] = "Role Switch Pending"
        table[0x34] = "Reserved Slot Violation"
        table[0x35] = "Role Switch Failed"
        table[0x36] = "Extended Inquiry Response Too Large"
        table[0x37] = "Secure Simple Pairing Not Supported By Host"
        table[0x38] = "Host Busy - Pairing"
        table[0x39] = "Connection Rejected due to No Suitable Channel Found"
        table[0x3A] = "Controller Busy"
        table[0x3B] = "Unacceptable Connection Parameters"
        table[0x3C] = "Advertising Timeout"
        table[0x3D] = "Connection Terminated due to MIC Failure"
        table[0x3E] = "Connection Failed to be Established / Synchronization Timeout"
        table[0x3F] = "Previously Used"
        table[0x40] = "Coarse Clock Adjustment Rejected but Will Try to Adjust Using Clock Dragging"
        table[0x41] = "Type0 Submap Not Defined"
        table[0x42] = "Unknown Advertising Identifier"
        table[0x43] = "Limit Reached"
        table[0x44] = "Operation Cancelled by Host"
        table[0x45] = "Packet Too Long"
        return table
    }()

    /// Every status code the spec assigns (0x00 ... 0x45, without the reserved ones).
    public static let allAssigned: [HCIStatus] = names.indices.compactMap { code in
        names[code] == nil ? nil : HCIStatus(rawValue: UInt8(code))
    }
}
