// Commands that create, change and end connections (Core Specification Vol 4, Part E, 7.1 and 7.8).

/// HCI_LE_Create_Connection. Answered by Command Status; the connection (or its failure)
/// arrives as LE Connection Complete / LE Enhanced Connection Complete.
package struct HCILECreateConnection: HCICommand {
    package static let opcode = HCIOpcode.leCreateConnection
    package static let completion = HCICommandCompletion.commandStatus

    /// Scan interval and window in 0.625 ms units.
    package var scanInterval: UInt16
    package var scanWindow: UInt16
    /// 0: connect to `peerAddress`; 1: to any device on the Filter Accept List.
    package var initiatorFilterPolicy: UInt8
    package var peerAddressType: LEAddressType
    package var peerAddress: BluetoothAddress
    package var ownAddressType: LEOwnAddressType
    package var connection: LEConnectionParameters

    package init(scanInterval: UInt16, scanWindow: UInt16, initiatorFilterPolicy: UInt8 = 0,
                peerAddressType: LEAddressType, peerAddress: BluetoothAddress,
                ownAddressType: LEOwnAddressType = .public, connection: LEConnectionParameters) {
        self.scanInterval = scanInterval
        self.scanWindow = scanWindow
        self.initiatorFilterPolicy = initiatorFilterPolicy
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.ownAddressType = ownAddressType
        self.connection = connection
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(scanInterval: 0, scanWindow: 0, peerAddressType: .public, peerAddress: BluetoothAddress(wire: (0, 0, 0, 0, 0, 0)),
                  connection: LEConnectionParameters(intervalMin: 0, intervalMax: 0, supervisionTimeout: 0))
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("LE_Scan_Interval", &scanInterval)
        try walker.field("LE_Scan_Window", &scanWindow)
        try walker.field("Initiator_Filter_Policy", &initiatorFilterPolicy)
        try walker.field("Peer_Address_Type", &peerAddressType)
        try walker.field("Peer_Address", &peerAddress)
        try walker.field("Own_Address_Type", &ownAddressType)
        try connection.walk(&walker)
    }
}

/// HCI_LE_Extended_Create_Connection [v1]: one parameter set per initiating PHY.
package struct HCILEExtendedCreateConnection: HCICommand {
    package static let opcode = HCIOpcode.leExtendedCreateConnection
    package static let completion = HCICommandCompletion.commandStatus

    package struct PHYParameters: Sendable, Hashable {
        /// Scan interval and window in 0.625 ms units.
        package var scanInterval: UInt16
        package var scanWindow: UInt16
        package var connection: LEConnectionParameters
        package init(scanInterval: UInt16, scanWindow: UInt16, connection: LEConnectionParameters) {
            self.scanInterval = scanInterval
            self.scanWindow = scanWindow
            self.connection = connection
        }

        /// The set for one PHY, walked when `present` (its bit is in Initiating_PHYs).
        static func walk<Walker: HCIParameterWalker>(_ parameters: inout Self?, if present: Bool,
                                                     _ walker: inout Walker) throws(Walker.Failure) {
            guard present else { return parameters = nil }
            var set = parameters ?? Self(scanInterval: 0, scanWindow: 0,
                                         connection: LEConnectionParameters(intervalMin: 0, intervalMax: 0, supervisionTimeout: 0))
            try walker.field("Scan_Interval", &set.scanInterval)
            try walker.field("Scan_Window", &set.scanWindow)
            try set.connection.walk(&walker)
            parameters = set
        }
    }

    package var initiatorFilterPolicy: UInt8
    package var ownAddressType: LEOwnAddressType
    package var peerAddressType: LEAddressType
    package var peerAddress: BluetoothAddress
    package var le1M: PHYParameters?
    package var le2M: PHYParameters?
    package var leCoded: PHYParameters?

    package init(initiatorFilterPolicy: UInt8 = 0, ownAddressType: LEOwnAddressType = .public,
                peerAddressType: LEAddressType, peerAddress: BluetoothAddress,
                le1M: PHYParameters?, le2M: PHYParameters? = nil, leCoded: PHYParameters? = nil) {
        self.initiatorFilterPolicy = initiatorFilterPolicy
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.le1M = le1M
        self.le2M = le2M
        self.leCoded = leCoded
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(peerAddressType: .public, peerAddress: BluetoothAddress(wire: (0, 0, 0, 0, 0, 0)), le1M: nil)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Initiator_Filter_Policy", &initiatorFilterPolicy)
        try walker.field("Own_Address_Type", &ownAddressType)
        try walker.field("Peer_Address_Type", &peerAddressType)
        try walker.field("Peer_Address", &peerAddress)
        var phys = LEPHYs()
        if le1M != nil { phys.insert(.le1M) }
        if le2M != nil { phys.insert(.le2M) }
        if leCoded != nil { phys.insert(.leCoded) }
        try walker.field("Initiating_PHYs", &phys)
        // The per-PHY sets follow the bit order of Initiating_PHYs.
        try PHYParameters.walk(&le1M, if: phys.contains(.le1M), &walker)
        try PHYParameters.walk(&le2M, if: phys.contains(.le2M), &walker)
        try PHYParameters.walk(&leCoded, if: phys.contains(.leCoded), &walker)
    }
}

/// HCI_LE_Create_Connection_Cancel. Answered by Command Complete; the pending creation then
/// ends with a connection complete event whose status is Unknown Connection Identifier.
package struct HCILECreateConnectionCancel: HCICommand {
    package static let opcode = HCIOpcode.leCreateConnectionCancel
    package init() {}
}

/// HCI_Disconnect. Answered by Command Status; Disconnection Complete follows.
package struct HCIDisconnect: HCICommand {
    package static let opcode = HCIOpcode.disconnect
    package static let completion = HCICommandCompletion.commandStatus

    package var connectionHandle: ConnectionHandle
    /// Usually Remote User Terminated Connection (0x13).
    package var reason: HCIStatus

    package init(connectionHandle: ConnectionHandle, reason: HCIStatus = .remoteUserTerminatedConnection) {
        self.connectionHandle = connectionHandle
        self.reason = reason
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(connectionHandle: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("Reason", &reason)
    }
}

/// HCI_LE_Connection_Update. Answered by Command Status; LE Connection Update Complete follows.
package struct HCILEConnectionUpdate: HCICommand {
    package static let opcode = HCIOpcode.leConnectionUpdate
    package static let completion = HCICommandCompletion.commandStatus

    package var connectionHandle: ConnectionHandle
    package var connection: LEConnectionParameters

    package init(connectionHandle: ConnectionHandle, connection: LEConnectionParameters) {
        self.connectionHandle = connectionHandle
        self.connection = connection
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(connectionHandle: 0, connection: LEConnectionParameters(intervalMin: 0, intervalMax: 0, supervisionTimeout: 0))
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
        try connection.walk(&walker)
    }
}

/// HCI_LE_Remote_Connection_Parameter_Request_Reply (Vol 4, Part E, 7.8.31): the host accepts
/// the peer's LL Connection Parameters Request, with these parameters (the ones asked for, or
/// narrowed to the host's policy). Returns the connection handle.
package struct HCILERemoteConnectionParameterRequestReply: HCICommand {
    package typealias ReturnParameters = HCIConnectionHandleReturnParameters
    package static let opcode = HCIOpcode.leRemoteConnectionParameterRequestReply

    package var connectionHandle: ConnectionHandle
    package var connection: LEConnectionParameters

    package init(connectionHandle: ConnectionHandle, connection: LEConnectionParameters) {
        self.connectionHandle = connectionHandle
        self.connection = connection
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(connectionHandle: 0, connection: LEConnectionParameters(intervalMin: 0, intervalMax: 0, supervisionTimeout: 0))
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
        try connection.walk(&walker)
    }
}

/// HCI_LE_Remote_Connection_Parameter_Request_Negative_Reply (Vol 4, Part E, 7.8.32): the host
/// refuses the peer's request, usually with Unacceptable Connection Parameters (0x3B). Returns
/// the connection handle.
package struct HCILERemoteConnectionParameterRequestNegativeReply: HCICommand {
    package typealias ReturnParameters = HCIConnectionHandleReturnParameters
    package static let opcode = HCIOpcode.leRemoteConnectionParameterRequestNegativeReply

    package var connectionHandle: ConnectionHandle
    package var reason: HCIStatus

    package init(connectionHandle: ConnectionHandle, reason: HCIStatus = .unacceptableConnectionParameters) {
        self.connectionHandle = connectionHandle
        self.reason = reason
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(connectionHandle: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("Reason", &reason)
    }
}

/// HCI_LE_Set_Data_Length: the largest link-layer payload (octets, 0x001B ... 0x00FB) and time
/// (µs, 0x0148 ... 0x4290) the controller should use. Returns the connection handle.
package struct HCILESetDataLength: HCICommand {
    package typealias ReturnParameters = HCIConnectionHandleReturnParameters
    package static let opcode = HCIOpcode.leSetDataLength

    package var connectionHandle: ConnectionHandle
    package var txOctets: UInt16
    package var txTime: UInt16

    package init(connectionHandle: ConnectionHandle, txOctets: UInt16, txTime: UInt16) {
        self.connectionHandle = connectionHandle
        self.txOctets = txOctets
        self.txTime = txTime
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(connectionHandle: 0, txOctets: 0, txTime: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("TX_Octets", &txOctets)
        try walker.field("TX_Time", &txTime)
    }
}

/// HCI_LE_Set_PHY. Answered by Command Status; LE PHY Update Complete follows.
package struct HCILESetPHY: HCICommand {
    package static let opcode = HCIOpcode.leSetPHY
    package static let completion = HCICommandCompletion.commandStatus

    package var connectionHandle: ConnectionHandle
    /// Bit 0: no TX preference; bit 1: no RX preference.
    package var allPHYs: UInt8
    package var txPHYs: LEPHYs
    package var rxPHYs: LEPHYs
    /// For LE Coded: 0 no preference, 1 S=2, 2 S=8.
    package var phyOptions: UInt16

    package init(connectionHandle: ConnectionHandle, allPHYs: UInt8 = 0, txPHYs: LEPHYs, rxPHYs: LEPHYs, phyOptions: UInt16 = 0) {
        self.connectionHandle = connectionHandle
        self.allPHYs = allPHYs
        self.txPHYs = txPHYs
        self.rxPHYs = rxPHYs
        self.phyOptions = phyOptions
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(connectionHandle: 0, txPHYs: [], rxPHYs: [])
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
        try walker.field("All_PHYs", &allPHYs)
        try walker.field("TX_PHYs", &txPHYs)
        try walker.field("RX_PHYs", &rxPHYs)
        try walker.field("PHY_Options", &phyOptions)
    }
}

/// HCI_LE_Read_PHY (Vol 4, Part E, 7.8.47): the PHY a connection uses in each direction.
package struct HCILEReadPHY: HCICommand {
    package static let opcode = HCIOpcode.leReadPHY

    package var connectionHandle: ConnectionHandle

    package init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(connectionHandle: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
    }

    package struct ReturnParameters: HCIParameters {
        package var connectionHandle: ConnectionHandle = 0
        package var txPHY = LEPHY.le1M
        package var rxPHY = LEPHY.le1M

        package init() {}

        package init(connectionHandle: ConnectionHandle, txPHY: LEPHY, rxPHY: LEPHY) {
            self.connectionHandle = connectionHandle
            self.txPHY = txPHY
            self.rxPHY = rxPHY
        }

        package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
            try walker.field("Connection_Handle", &connectionHandle)
            try walker.field("TX_PHY", &txPHY)
            try walker.field("RX_PHY", &rxPHY)
        }
    }
}

/// HCI_LE_Read_Remote_Features. Answered by Command Status; LE Read Remote Features Complete follows.
package struct HCILEReadRemoteFeatures: HCICommand {
    package static let opcode = HCIOpcode.leReadRemoteFeatures
    package static let completion = HCICommandCompletion.commandStatus

    package var connectionHandle: ConnectionHandle
    package init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(connectionHandle: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
    }
}

/// HCI_Read_Remote_Version_Information. Answered by Command Status; Read Remote Version
/// Information Complete follows.
package struct HCIReadRemoteVersionInformation: HCICommand {
    package static let opcode = HCIOpcode.readRemoteVersionInformation
    package static let completion = HCICommandCompletion.commandStatus

    package var connectionHandle: ConnectionHandle
    package init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(connectionHandle: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
    }
}
