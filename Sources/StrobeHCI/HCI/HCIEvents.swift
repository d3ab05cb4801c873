// The fixed-layout events the stack decodes (Core Specification Vol 4, Part E, 7.7).

/// Command Complete: the result of a command, with its return parameters (status first).
public struct CommandCompleteEvent: Sendable, Hashable {
    public var numHCICommandPackets: UInt8
    public var opcode: HCIOpcode
    public var returnParameters: [UInt8]
}

/// Command Status: a command was accepted (status 0) and runs; or it was refused.
public struct CommandStatusEvent: Sendable, Hashable {
    public var status: HCIStatus
    public var numHCICommandPackets: UInt8
    public var opcode: HCIOpcode
}

/// Disconnection Complete.
public struct DisconnectionCompleteEvent: Sendable, Hashable {
    public var status: HCIStatus
    public var connectionHandle: ConnectionHandle
    public var reason: HCIStatus
}

/// One entry of Number Of Completed Packets: packets of one connection the controller has
/// finished with, whose buffers the host may reuse.
public struct CompletedPackets: Sendable, Hashable {
    public var connectionHandle: ConnectionHandle
    public var count: UInt16
}

/// Read Remote Version Information Complete.
public struct ReadRemoteVersionInformationCompleteEvent: Sendable, Hashable {
    public var status: HCIStatus
    public var connectionHandle: ConnectionHandle
    public var version: UInt8
    public var companyIdentifier: UInt16
    public var subversion: UInt16
}

/// LE Connection Complete and LE Enhanced Connection Complete [v1] and [v2] in one shape; the
/// fields only the enhanced forms carry are `nil` for the legacy one.
public struct LEConnectionCompleteEvent: Sendable, Hashable {
    /// Which subevent this came from (0x01, 0x0A or 0x29).
    public var subevent: UInt8
    public var status: HCIStatus
    public var connectionHandle: ConnectionHandle
    public var role: LERole
    public var peerAddressType: LEAddressType
    public var peerAddress: BluetoothAddress
    public var localResolvablePrivateAddress: BluetoothAddress?
    public var peerResolvablePrivateAddress: BluetoothAddress?
    /// In 1.25 ms units.
    public var connectionInterval: UInt16
    public var peripheralLatency: UInt16
    /// In 10 ms units.
    public var supervisionTimeout: UInt16
    public var centralClockAccuracy: UInt8
    /// [v2] only: the advertising set that made the connection (peripheral role), else 0xFF.
    public var advertisingHandle: UInt8?
    public var syncHandle: UInt16?
}

/// LE Connection Update Complete.
public struct LEConnectionUpdateCompleteEvent: Sendable, Hashable {
    public var status: HCIStatus
    public var connectionHandle: ConnectionHandle
    /// In 1.25 ms units.
    public var connectionInterval: UInt16
    public var peripheralLatency: UInt16
    /// In 10 ms units.
    public var supervisionTimeout: UInt16
}

/// LE Remote Connection Parameter Request: the peer asks, through the link layer's Connection
/// Parameters Request procedure, for these parameters; the host must answer with a Reply or a
/// Negative Reply before the procedure times out (40 s), or the link is lost.
public struct LERemoteConnectionParameterRequestEvent: Sendable, Hashable {
    public var connectionHandle: ConnectionHandle
    /// In 1.25 ms units.
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    public var maxLatency: UInt16
    /// In 10 ms units.
    public var supervisionTimeout: UInt16

    public init(connectionHandle: ConnectionHandle, intervalMin: UInt16, intervalMax: UInt16, maxLatency: UInt16, supervisionTimeout: UInt16) {
        self.connectionHandle = connectionHandle
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.maxLatency = maxLatency
        self.supervisionTimeout = supervisionTimeout
    }

    public var parameters: LEConnectionParameters {
        LEConnectionParameters(intervalMin: intervalMin, intervalMax: intervalMax, maxLatency: maxLatency, supervisionTimeout: supervisionTimeout)
    }
}

/// LE Read Remote Features Complete.
public struct LEReadRemoteFeaturesCompleteEvent: Sendable, Hashable {
    public var status: HCIStatus
    public var connectionHandle: ConnectionHandle
    public var features: LEFeatures
}

/// LE Data Length Change: the link-layer payload sizes now in use.
public struct LEDataLengthChangeEvent: Sendable, Hashable {
    public var connectionHandle: ConnectionHandle
    public var maxTxOctets: UInt16
    public var maxTxTime: UInt16
    public var maxRxOctets: UInt16
    public var maxRxTime: UInt16
}

/// LE PHY Update Complete.
public struct LEPHYUpdateCompleteEvent: Sendable, Hashable {
    public var status: HCIStatus
    public var connectionHandle: ConnectionHandle
    public var txPHY: LEPHY
    public var rxPHY: LEPHY
}

/// Encryption Change [v1]/[v2] (Core Vol 4, Part E, 7.7.8 and 7.7.8.1), or Encryption Key
/// Refresh Complete (7.7.39), which reports a link encrypted again with a new key.
public struct EncryptionChangeEvent: Sendable, Hashable {
    public var status: HCIStatus
    public var connectionHandle: ConnectionHandle
    public var enabled: Bool
    /// [v2] only.
    public var keySize: UInt8?
    public var isKeyRefresh: Bool

    public init(status: HCIStatus, connectionHandle: ConnectionHandle, enabled: Bool, keySize: UInt8? = nil, isKeyRefresh: Bool = false) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.enabled = enabled
        self.keySize = keySize
        self.isKeyRefresh = isKeyRefresh
    }
}

/// LE Long Term Key Request (Vol 4, Part E, 7.7.65.5): the central asked to encrypt; the
/// peripheral's host answers with the key EDIV and Rand name, or a negative reply.
public struct LELongTermKeyRequestEvent: Sendable, Hashable {
    public var connectionHandle: ConnectionHandle
    public var random: UInt64
    public var encryptedDiversifier: UInt16

    public init(connectionHandle: ConnectionHandle, random: UInt64, encryptedDiversifier: UInt16) {
        self.connectionHandle = connectionHandle
        self.random = random
        self.encryptedDiversifier = encryptedDiversifier
    }
}
