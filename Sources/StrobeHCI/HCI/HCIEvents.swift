// The fixed-layout events the stack decodes (Core Specification Vol 4, Part E, 7.7).

/// Command Complete: the result of a command, with its return parameters (status first).
package struct CommandCompleteEvent: Sendable, Hashable {
    package var numHCICommandPackets: UInt8
    package var opcode: HCIOpcode
    package var returnParameters: [UInt8]
}

/// Command Status: a command was accepted (status 0) and runs; or it was refused.
package struct CommandStatusEvent: Sendable, Hashable {
    package var status: HCIStatus
    package var numHCICommandPackets: UInt8
    package var opcode: HCIOpcode
}

/// Disconnection Complete.
package struct DisconnectionCompleteEvent: Sendable, Hashable {
    package var status: HCIStatus
    package var connectionHandle: ConnectionHandle
    package var reason: HCIStatus
}

/// One entry of Number Of Completed Packets: packets of one connection the controller has
/// finished with, whose buffers the host may reuse.
package struct CompletedPackets: Sendable, Hashable {
    package var connectionHandle: ConnectionHandle
    package var count: UInt16
}

/// Read Remote Version Information Complete.
package struct ReadRemoteVersionInformationCompleteEvent: Sendable, Hashable {
    package var status: HCIStatus
    package var connectionHandle: ConnectionHandle
    package var version: UInt8
    package var companyIdentifier: UInt16
    package var subversion: UInt16
}

/// LE Connection Complete and LE Enhanced Connection Complete [v1] and [v2] in one shape; the
/// fields only the enhanced forms carry are `nil` for the legacy one.
package struct LEConnectionCompleteEvent: Sendable, Hashable {
    /// Which subevent this came from (0x01, 0x0A or 0x29).
    package var subevent: UInt8
    package var status: HCIStatus
    package var connectionHandle: ConnectionHandle
    package var role: LERole
    package var peerAddressType: LEAddressType
    package var peerAddress: BluetoothAddress
    package var localResolvablePrivateAddress: BluetoothAddress?
    package var peerResolvablePrivateAddress: BluetoothAddress?
    /// In 1.25 ms units.
    package var connectionInterval: UInt16
    package var peripheralLatency: UInt16
    /// In 10 ms units.
    package var supervisionTimeout: UInt16
    package var centralClockAccuracy: UInt8
    /// [v2] only: the advertising set that made the connection (peripheral role), else 0xFF.
    package var advertisingHandle: UInt8?
    package var syncHandle: UInt16?
}

/// LE Connection Update Complete.
package struct LEConnectionUpdateCompleteEvent: Sendable, Hashable {
    package var status: HCIStatus
    package var connectionHandle: ConnectionHandle
    /// In 1.25 ms units.
    package var connectionInterval: UInt16
    package var peripheralLatency: UInt16
    /// In 10 ms units.
    package var supervisionTimeout: UInt16
}

/// LE Remote Connection Parameter Request: the peer asks, through the link layer's Connection
/// Parameters Request procedure, for these parameters; the host must answer with a Reply or a
/// Negative Reply before the procedure times out (40 s), or the link is lost.
package struct LERemoteConnectionParameterRequestEvent: Sendable, Hashable {
    package var connectionHandle: ConnectionHandle
    /// In 1.25 ms units.
    package var intervalMin: UInt16
    package var intervalMax: UInt16
    package var maxLatency: UInt16
    /// In 10 ms units.
    package var supervisionTimeout: UInt16

    package init(connectionHandle: ConnectionHandle, intervalMin: UInt16, intervalMax: UInt16, maxLatency: UInt16, supervisionTimeout: UInt16) {
        self.connectionHandle = connectionHandle
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.maxLatency = maxLatency
        self.supervisionTimeout = supervisionTimeout
    }

    package var parameters: LEConnectionParameters {
        LEConnectionParameters(intervalMin: intervalMin, intervalMax: intervalMax, maxLatency: maxLatency, supervisionTimeout: supervisionTimeout)
    }
}

/// LE Read Remote Features Complete.
package struct LEReadRemoteFeaturesCompleteEvent: Sendable, Hashable {
    package var status: HCIStatus
    package var connectionHandle: ConnectionHandle
    package var features: LEFeatures
}

/// LE Data Length Change: the link-layer payload sizes now in use.
package struct LEDataLengthChangeEvent: Sendable, Hashable {
    package var connectionHandle: ConnectionHandle
    package var maxTxOctets: UInt16
    package var maxTxTime: UInt16
    package var maxRxOctets: UInt16
    package var maxRxTime: UInt16
}

/// LE PHY Update Complete.
package struct LEPHYUpdateCompleteEvent: Sendable, Hashable {
    package var status: HCIStatus
    package var connectionHandle: ConnectionHandle
    package var txPHY: LEPHY
    package var rxPHY: LEPHY
}

/// Encryption Change [v1]/[v2] (Core Vol 4, Part E, 7.7.8 and 7.7.8.1), or Encryption Key
/// Refresh Complete (7.7.39), which reports a link encrypted again with a new key.
package struct EncryptionChangeEvent: Sendable, Hashable {
    package var status: HCIStatus
    package var connectionHandle: ConnectionHandle
    package var enabled: Bool
    /// [v2] only.
    package var keySize: UInt8?
    package var isKeyRefresh: Bool

    package init(status: HCIStatus, connectionHandle: ConnectionHandle, enabled: Bool, keySize: UInt8? = nil, isKeyRefresh: Bool = false) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.enabled = enabled
        self.keySize = keySize
        self.isKeyRefresh = isKeyRefresh
    }
}

/// LE Long Term Key Request (Vol 4, Part E, 7.7.65.5): the central asked to encrypt; the
/// peripheral's host answers with the key EDIV and Rand name, or a negative reply.
package struct LELongTermKeyRequestEvent: Sendable, Hashable {
    package var connectionHandle: ConnectionHandle
    package var random: UInt64
    package var encryptedDiversifier: UInt16

    package init(connectionHandle: ConnectionHandle, random: UInt64, encryptedDiversifier: UInt16) {
        self.connectionHandle = connectionHandle
        self.random = random
        self.encryptedDiversifier = encryptedDiversifier
    }
}
