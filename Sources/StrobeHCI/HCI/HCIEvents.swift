// The fixed-layout events the stack decodes (Core Specification Vol 4, Part E, 7.7).

/// Command Complete: the result of a command, with its return parameters (status first).
package struct CommandCompleteEvent: Sendable, Hashable {
    package var numHCICommandPackets: UInt8
    package var opcode: HCIOpcode
    package var returnParameters: [UInt8]

    package init(numHCICommandPackets: UInt8, opcode: HCIOpcode, returnParameters: [UInt8]) {
        self.numHCICommandPackets = numHCICommandPackets
        self.opcode = opcode
        self.returnParameters = returnParameters
    }
}

/// Command Status: a command was accepted (status 0) and runs; or it was refused.
package struct CommandStatusEvent: Sendable, Hashable {
    package var status: HCIStatus
    package var numHCICommandPackets: UInt8
    package var opcode: HCIOpcode

    package init(status: HCIStatus, numHCICommandPackets: UInt8, opcode: HCIOpcode) {
        self.status = status
        self.numHCICommandPackets = numHCICommandPackets
        self.opcode = opcode
    }
}

/// Disconnection Complete.
package struct DisconnectionCompleteEvent: Sendable, Hashable {
    package var status: HCIStatus
    package var connectionHandle: ConnectionHandle
    package var reason: HCIStatus

    package init(status: HCIStatus, connectionHandle: ConnectionHandle, reason: HCIStatus) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.reason = reason
    }
}

/// One entry of Number Of Completed Packets: packets of one connection the controller has
/// finished with, whose buffers the host may reuse.
package struct CompletedPackets: Sendable, Hashable {
    package var connectionHandle: ConnectionHandle
    package var count: UInt16

    package init(connectionHandle: ConnectionHandle, count: UInt16) {
        self.connectionHandle = connectionHandle
        self.count = count
    }
}

/// Read Remote Version Information Complete.
package struct ReadRemoteVersionInformationCompleteEvent: Sendable, Hashable {
    package var status: HCIStatus
    package var connectionHandle: ConnectionHandle
    package var version: UInt8
    package var companyIdentifier: UInt16
    package var subversion: UInt16

    package init(status: HCIStatus, connectionHandle: ConnectionHandle, version: UInt8, companyIdentifier: UInt16, subversion: UInt16) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.version = version
        self.companyIdentifier = companyIdentifier
        self.subversion = subversion
    }
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

    package init(subevent: UInt8, status: HCIStatus, connectionHandle: ConnectionHandle, role: LERole, peerAddressType: LEAddressType, peerAddress: BluetoothAddress, localResolvablePrivateAddress: BluetoothAddress? = nil, peerResolvablePrivateAddress: BluetoothAddress? = nil, connectionInterval: UInt16, peripheralLatency: UInt16, supervisionTimeout: UInt16, centralClockAccuracy: UInt8, advertisingHandle: UInt8? = nil, syncHandle: UInt16? = nil) {
        self.subevent = subevent
        self.status = status
        self.connectionHandle = connectionHandle
        self.role = role
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.localResolvablePrivateAddress = localResolvablePrivateAddress
        self.peerResolvablePrivateAddress = peerResolvablePrivateAddress
        self.connectionInterval = connectionInterval
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeout = supervisionTimeout
        self.centralClockAccuracy = centralClockAccuracy
        self.advertisingHandle = advertisingHandle
        self.syncHandle = syncHandle
    }
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

    package init(status: HCIStatus, connectionHandle: ConnectionHandle, connectionInterval: UInt16, peripheralLatency: UInt16, supervisionTimeout: UInt16) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.connectionInterval = connectionInterval
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeout = supervisionTimeout
    }
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

    package init(status: HCIStatus, connectionHandle: ConnectionHandle, features: LEFeatures) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.features = features
    }
}

/// LE Data Length Change: the link-layer payload sizes now in use.
package struct LEDataLengthChangeEvent: Sendable, Hashable {
    package var connectionHandle: ConnectionHandle
    package var maxTxOctets: UInt16
    package var maxTxTime: UInt16
    package var maxRxOctets: UInt16
    package var maxRxTime: UInt16

    package init(connectionHandle: ConnectionHandle, maxTxOctets: UInt16, maxTxTime: UInt16, maxRxOctets: UInt16, maxRxTime: UInt16) {
        self.connectionHandle = connectionHandle
        self.maxTxOctets = maxTxOctets
        self.maxTxTime = maxTxTime
        self.maxRxOctets = maxRxOctets
        self.maxRxTime = maxRxTime
    }
}

/// LE PHY Update Complete.
package struct LEPHYUpdateCompleteEvent: Sendable, Hashable {
    package var status: HCIStatus
    package var connectionHandle: ConnectionHandle
    package var txPHY: LEPHY
    package var rxPHY: LEPHY

    package init(status: HCIStatus, connectionHandle: ConnectionHandle, txPHY: LEPHY, rxPHY: LEPHY) {
        self.status = status
        self.connectionHandle = connectionHandle
        self.txPHY = txPHY
        self.rxPHY = rxPHY
    }
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

// MARK: - Descriptions

extension CommandCompleteEvent: HCIParameters {
    package init() { self.init(numHCICommandPackets: 0, opcode: HCIOpcode(rawValue: 0), returnParameters: []) }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Num_HCI_Command_Packets", &numHCICommandPackets)
        try walker.field("Command_Opcode", &opcode)
        try walker.rest("Return_Parameters", &returnParameters)
    }
}

extension CommandStatusEvent: HCIParameters {
    package init() { self.init(status: .success, numHCICommandPackets: 0, opcode: HCIOpcode(rawValue: 0)) }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Status", &status)
        try walker.field("Num_HCI_Command_Packets", &numHCICommandPackets)
        try walker.field("Command_Opcode", &opcode)
    }
}

extension DisconnectionCompleteEvent: HCIParameters {
    package init() { self.init(status: .success, connectionHandle: 0, reason: .success) }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Status", &status)
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("Reason", &reason)
    }
}

extension CompletedPackets: HCIListElement {
    package static var countName: String { "Num_Handles" }

    package init() { self.init(connectionHandle: 0, count: 0) }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("Num_Completed_Packets", &count)
    }
}

/// One group of a list event's fields (an entry of Number Of Completed Packets, one advertising
/// report), and the name of the count before them.
package protocol HCIListElement: HCIParameters {
    static var countName: String { get }
}

/// An event whose parameters are a count, then that many groups of fields one after another
/// (Number Of Completed Packets, the advertising reports).
package struct HCIList<Element: HCIListElement>: HCIParameters {
    package var elements: [Element] = []
    package init() {}
    package init(_ elements: [Element]) { self.elements = elements }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.list(Element.countName, &elements)
    }
}

extension ReadRemoteVersionInformationCompleteEvent: HCIParameters {
    package init() { self.init(status: .success, connectionHandle: 0, version: 0, companyIdentifier: 0, subversion: 0) }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Status", &status)
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("Version", &version)
        try walker.field("Company_Identifier", &companyIdentifier)
        try walker.field("Subversion", &subversion)
    }
}

/// Hardware Error.
package struct HardwareErrorEvent: HCIParameters {
    package var code: UInt8 = 0
    package init() {}

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Hardware_Code", &code)
    }
}

extension LEConnectionCompleteEvent: HCIParameters {
    /// Blank, for a decoder; `subevent` says which form it reads.
    package init() { self.init(subevent: LEMetaSubevent.connectionComplete) }

    package init(subevent: UInt8) {
        self.init(subevent: subevent, status: .success, connectionHandle: 0, role: .central, peerAddressType: .public,
                  peerAddress: BluetoothAddress(wire: (0, 0, 0, 0, 0, 0)), connectionInterval: 0, peripheralLatency: 0,
                  supervisionTimeout: 0, centralClockAccuracy: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        let enhanced = subevent != LEMetaSubevent.connectionComplete
        try walker.field("Status", &status)
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("Role", &role)
        try walker.field("Peer_Address_Type", &peerAddressType)
        try walker.field("Peer_Address", &peerAddress)
        if enhanced {
            try Self.walk("Local_Resolvable_Private_Address", &localResolvablePrivateAddress, &walker)
            try Self.walk("Peer_Resolvable_Private_Address", &peerResolvablePrivateAddress, &walker)
        }
        try walker.field("Connection_Interval", &connectionInterval)
        try walker.field("Peripheral_Latency", &peripheralLatency)
        try walker.field("Supervision_Timeout", &supervisionTimeout)
        try walker.field("Central_Clock_Accuracy", &centralClockAccuracy)
        if subevent == LEMetaSubevent.enhancedConnectionCompleteV2 {
            var handle = advertisingHandle ?? 0xFF
            try walker.field("Advertising_Handle", &handle)
            advertisingHandle = handle
            var sync = syncHandle ?? 0xFFFF
            try walker.field("Sync_Handle", &sync)
            syncHandle = sync
        }
    }

    /// A field only the enhanced forms have: nil in the legacy one.
    private static func walk<Walker: HCIParameterWalker>(_ name: String, _ address: inout BluetoothAddress?,
                                                         _ walker: inout Walker) throws(Walker.Failure) {
        var value = address ?? BluetoothAddress(wire: (0, 0, 0, 0, 0, 0))
        try walker.field(name, &value)
        address = value
    }
}

extension LEConnectionUpdateCompleteEvent: HCIParameters {
    package init() { self.init(status: .success, connectionHandle: 0, connectionInterval: 0, peripheralLatency: 0, supervisionTimeout: 0) }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Status", &status)
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("Connection_Interval", &connectionInterval)
        try walker.field("Peripheral_Latency", &peripheralLatency)
        try walker.field("Supervision_Timeout", &supervisionTimeout)
    }
}

extension LERemoteConnectionParameterRequestEvent: HCIParameters {
    package init() { self.init(connectionHandle: 0, intervalMin: 0, intervalMax: 0, maxLatency: 0, supervisionTimeout: 0) }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("Interval_Min", &intervalMin)
        try walker.field("Interval_Max", &intervalMax)
        try walker.field("Max_Latency", &maxLatency)
        try walker.field("Timeout", &supervisionTimeout)
    }
}

extension LEReadRemoteFeaturesCompleteEvent: HCIParameters {
    package init() { self.init(status: .success, connectionHandle: 0, features: []) }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Status", &status)
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("LE_Features", &features)
    }
}

extension LEDataLengthChangeEvent: HCIParameters {
    package init() { self.init(connectionHandle: 0, maxTxOctets: 0, maxTxTime: 0, maxRxOctets: 0, maxRxTime: 0) }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("Max_TX_Octets", &maxTxOctets)
        try walker.field("Max_TX_Time", &maxTxTime)
        try walker.field("Max_RX_Octets", &maxRxOctets)
        try walker.field("Max_RX_Time", &maxRxTime)
    }
}

extension LEPHYUpdateCompleteEvent: HCIParameters {
    package init() { self.init(status: .success, connectionHandle: 0, txPHY: .le1M, rxPHY: .le1M) }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Status", &status)
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("TX_PHY", &txPHY)
        try walker.field("RX_PHY", &rxPHY)
    }
}

extension EncryptionChangeEvent: HCIParameters {
    /// Blank Encryption Change [v1]; a decoder sets `keySize` (to any value) for [v2] and
    /// `isKeyRefresh` for Encryption Key Refresh Complete before walking.
    package init() { self.init(status: .success, connectionHandle: 0, enabled: false) }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Status", &status)
        try walker.field("Connection_Handle", &connectionHandle)
        // Encryption Key Refresh Complete has no more: the link stays encrypted.
        guard !isKeyRefresh else { return enabled = true }
        // 0x00 off, 0x01 on (AES-CCM on LE), 0x02 on (E0 or AES-CCM on BR/EDR).
        var octet = UInt8(enabled ? 1 : 0)
        try walker.field("Encryption_Enabled", &octet)
        enabled = octet != 0
        if let size = keySize {
            var value = size
            try walker.field("Encryption_Key_Size", &value)
            keySize = value
        }
    }
}

extension LELongTermKeyRequestEvent: HCIParameters {
    package init() { self.init(connectionHandle: 0, random: 0, encryptedDiversifier: 0) }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("Random_Number", &random)
        try walker.field("Encrypted_Diversifier", &encryptedDiversifier)
    }
}
