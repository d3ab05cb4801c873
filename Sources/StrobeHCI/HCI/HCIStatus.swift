/// An HCI status / error code (Core Specification Vol 1, Part F, 1.3). Zero is success; every
/// other value is an error whose name is the spec's. Unknown values keep their number.
public struct HCIStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The one-byte code as events carry it.
    public var rawValue: UInt8

    /// Any code, assigned by the specification or not.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Whether the code is 0x00 Success.
    public var isSuccess: Bool { rawValue == 0 }

    /// The spec's name, or `nil` for a code it does not assign.
    public var assignedName: String? { Int(rawValue) < Self.names.count ? Self.names[Int(rawValue)] : nil }

    /// The spec's name, or `Unknown status` for a code it does not assign.
    public var name: String { assignedName ?? "Unknown status" }

    /// `Connection Timeout (0x08)`.
    public var description: String { "\(name) (\(hex(rawValue)))" }

    /// 0x00 Success.
    public static let success = HCIStatus(rawValue: 0x00)
    /// 0x01 Unknown HCI Command.
    public static let unknownHCICommand = HCIStatus(rawValue: 0x01)
    /// 0x02 Unknown Connection Identifier.
    public static let unknownConnectionIdentifier = HCIStatus(rawValue: 0x02)
    /// 0x03 Hardware Failure.
    public static let hardwareFailure = HCIStatus(rawValue: 0x03)
    /// 0x04 Page Timeout.
    public static let pageTimeout = HCIStatus(rawValue: 0x04)
    /// 0x05 Authentication Failure.
    public static let authenticationFailure = HCIStatus(rawValue: 0x05)
    /// 0x06 PIN or Key Missing.
    public static let pinOrKeyMissing = HCIStatus(rawValue: 0x06)
    /// 0x07 Memory Capacity Exceeded.
    public static let memoryCapacityExceeded = HCIStatus(rawValue: 0x07)
    /// 0x08 Connection Timeout.
    public static let connectionTimeout = HCIStatus(rawValue: 0x08)
    /// 0x09 Connection Limit Exceeded.
    public static let connectionLimitExceeded = HCIStatus(rawValue: 0x09)
    /// 0x0A Synchronous Connection Limit To A Device Exceeded.
    public static let synchronousConnectionLimitExceeded = HCIStatus(rawValue: 0x0A)
    /// 0x0B Connection Already Exists.
    public static let connectionAlreadyExists = HCIStatus(rawValue: 0x0B)
    /// 0x0C Command Disallowed.
    public static let commandDisallowed = HCIStatus(rawValue: 0x0C)
    /// 0x0D Connection Rejected due to Limited Resources.
    public static let connectionRejectedLimitedResources = HCIStatus(rawValue: 0x0D)
    /// 0x0E Connection Rejected Due To Security Reasons.
    public static let connectionRejectedSecurityReasons = HCIStatus(rawValue: 0x0E)
    /// 0x0F Connection Rejected due to Unacceptable BD_ADDR.
    public static let connectionRejectedUnacceptableBDAddr = HCIStatus(rawValue: 0x0F)
    /// 0x10 Connection Accept Timeout Exceeded.
    public static let connectionAcceptTimeoutExceeded = HCIStatus(rawValue: 0x10)
    /// 0x11 Unsupported Feature or Parameter Value.
    public static let unsupportedFeatureOrParameterValue = HCIStatus(rawValue: 0x11)
    /// 0x12 Invalid HCI Command Parameters.
    public static let invalidHCICommandParameters = HCIStatus(rawValue: 0x12)
    /// 0x13 Remote User Terminated Connection.
    public static let remoteUserTerminatedConnection = HCIStatus(rawValue: 0x13)
    /// 0x14 Remote Device Terminated Connection due to Low Resources.
    public static let remoteDeviceTerminatedLowResources = HCIStatus(rawValue: 0x14)
    /// 0x15 Remote Device Terminated Connection due to Power Off.
    public static let remoteDeviceTerminatedPowerOff = HCIStatus(rawValue: 0x15)
    /// 0x16 Connection Terminated By Local Host.
    public static let connectionTerminatedByLocalHost = HCIStatus(rawValue: 0x16)
    /// 0x17 Repeated Attempts.
    public static let repeatedAttempts = HCIStatus(rawValue: 0x17)
    /// 0x18 Pairing Not Allowed.
    public static let pairingNotAllowed = HCIStatus(rawValue: 0x18)
    /// 0x19 Unknown LMP PDU.
    public static let unknownLMPPDU = HCIStatus(rawValue: 0x19)
    /// 0x1A Unsupported Remote Feature.
    public static let unsupportedRemoteFeature = HCIStatus(rawValue: 0x1A)
    /// 0x1B SCO Offset Rejected.
    public static let scoOffsetRejected = HCIStatus(rawValue: 0x1B)
    /// 0x1C SCO Interval Rejected.
    public static let scoIntervalRejected = HCIStatus(rawValue: 0x1C)
    /// 0x1D SCO Air Mode Rejected.
    public static let scoAirModeRejected = HCIStatus(rawValue: 0x1D)
    /// 0x1E Invalid LMP Parameters / Invalid LL Parameters.
    public static let invalidLMPOrLLParameters = HCIStatus(rawValue: 0x1E)
    /// 0x1F Unspecified Error.
    public static let unspecifiedError = HCIStatus(rawValue: 0x1F)
    /// 0x20 Unsupported LMP Parameter Value / Unsupported LL Parameter Value.
    public static let unsupportedLMPOrLLParameterValue = HCIStatus(rawValue: 0x20)
    /// 0x21 Role Change Not Allowed.
    public static let roleChangeNotAllowed = HCIStatus(rawValue: 0x21)
    /// 0x22 LMP Response Timeout / LL Response Timeout.
    public static let lmpOrLLResponseTimeout = HCIStatus(rawValue: 0x22)
    /// 0x23 LMP Error Transaction Collision / LL Procedure Collision.
    public static let lmpTransactionOrLLProcedureCollision = HCIStatus(rawValue: 0x23)
    /// 0x24 LMP PDU Not Allowed.
    public static let lmpPDUNotAllowed = HCIStatus(rawValue: 0x24)
    /// 0x25 Encryption Mode Not Acceptable.
    public static let encryptionModeNotAcceptable = HCIStatus(rawValue: 0x25)
    /// 0x26 Link Key cannot be Changed.
    public static let linkKeyCannotBeChanged = HCIStatus(rawValue: 0x26)
    /// 0x27 Requested QoS Not Supported.
    public static let requestedQoSNotSupported = HCIStatus(rawValue: 0x27)
    /// 0x28 Instant Passed.
    public static let instantPassed = HCIStatus(rawValue: 0x28)
    /// 0x29 Pairing With Unit Key Not Supported.
    public static let pairingWithUnitKeyNotSupported = HCIStatus(rawValue: 0x29)
    /// 0x2A Different Transaction Collision.
    public static let differentTransactionCollision = HCIStatus(rawValue: 0x2A)
    /// 0x2C QoS Unacceptable Parameter.
    public static let qosUnacceptableParameter = HCIStatus(rawValue: 0x2C)
    /// 0x2D QoS Rejected.
    public static let qosRejected = HCIStatus(rawValue: 0x2D)
    /// 0x2E Channel Classification Not Supported.
    public static let channelClassificationNotSupported = HCIStatus(rawValue: 0x2E)
    /// 0x2F Insufficient Security.
    public static let insufficientSecurity = HCIStatus(rawValue: 0x2F)
    /// 0x30 Parameter Out Of Mandatory Range.
    public static let parameterOutOfMandatoryRange = HCIStatus(rawValue: 0x30)
    /// 0x32 Role Switch Pending.
    public static let roleSwitchPending = HCIStatus(rawValue: 0x32)
    /// 0x34 Reserved Slot Violation.
    public static let reservedSlotViolation = HCIStatus(rawValue: 0x34)
    /// 0x35 Role Switch Failed.
    public static let roleSwitchFailed = HCIStatus(rawValue: 0x35)
    /// 0x36 Extended Inquiry Response Too Large.
    public static let extendedInquiryResponseTooLarge = HCIStatus(rawValue: 0x36)
    /// 0x37 Secure Simple Pairing Not Supported By Host.
    public static let secureSimplePairingNotSupportedByHost = HCIStatus(rawValue: 0x37)
    /// 0x38 Host Busy - Pairing.
    public static let hostBusyPairing = HCIStatus(rawValue: 0x38)
    /// 0x39 Connection Rejected due to No Suitable Channel Found.
    public static let connectionRejectedNoSuitableChannelFound = HCIStatus(rawValue: 0x39)
    /// 0x3A Controller Busy.
    public static let controllerBusy = HCIStatus(rawValue: 0x3A)
    /// 0x3B Unacceptable Connection Parameters.
    public static let unacceptableConnectionParameters = HCIStatus(rawValue: 0x3B)
    /// 0x3C Advertising Timeout.
    public static let advertisingTimeout = HCIStatus(rawValue: 0x3C)
    /// 0x3D Connection Terminated due to MIC Failure.
    public static let connectionTerminatedMICFailure = HCIStatus(rawValue: 0x3D)
    /// 0x3E Connection Failed to be Established / Synchronization Timeout.
    public static let connectionFailedToBeEstablished = HCIStatus(rawValue: 0x3E)
    /// 0x3F MAC Connection Failed (the specification now lists 0x3F as Previously Used).
    public static let macConnectionFailed = HCIStatus(rawValue: 0x3F)
    /// 0x40 Coarse Clock Adjustment Rejected but Will Try to Adjust Using Clock Dragging.
    public static let coarseClockAdjustmentRejected = HCIStatus(rawValue: 0x40)
    /// 0x41 Type0 Submap Not Defined.
    public static let type0SubmapNotDefined = HCIStatus(rawValue: 0x41)
    /// 0x42 Unknown Advertising Identifier.
    public static let unknownAdvertisingIdentifier = HCIStatus(rawValue: 0x42)
    /// 0x43 Limit Reached.
    public static let limitReached = HCIStatus(rawValue: 0x43)
    /// 0x44 Operation Cancelled by Host.
    public static let operationCancelledByHost = HCIStatus(rawValue: 0x44)
    /// 0x45 Packet Too Long.
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
