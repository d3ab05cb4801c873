// Commands that create, change and end connections (Core Specification Vol 4, Part E, 7.1 and 7.8).

/// HCI_LE_Create_Connection. Answered by Command Status; the connection (or its failure)
/// arrives as LE Connection Complete / LE Enhanced Connection Complete.
public struct HCILECreateConnection: HCICommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leCreateConnection
    public static let completion = HCICommandCompletion.commandStatus

    /// Scan interval and window in 0.625 ms units.
    public var scanInterval: UInt16
    public var scanWindow: UInt16
    /// 0: connect to `peerAddress`; 1: to any device on the Filter Accept List.
    public var initiatorFilterPolicy: UInt8
    public var peerAddressType: LEAddressType
    public var peerAddress: BluetoothAddress
    public var ownAddressType: LEOwnAddressType
    public var connection: LEConnectionParameters

    public init(scanInterval: UInt16, scanWindow: UInt16, initiatorFilterPolicy: UInt8 = 0,
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

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(scanInterval)
        writer.write(scanWindow)
        writer.write(initiatorFilterPolicy)
        writer.write(peerAddressType.rawValue)
        writer.write(peerAddress)
        writer.write(ownAddressType.rawValue)
        connection.encode(into: &writer)
    }
}

/// HCI_LE_Extended_Create_Connection [v1]: one parameter set per initiating PHY.
public struct HCILEExtendedCreateConnection: HCICommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leExtendedCreateConnection
    public static let completion = HCICommandCompletion.commandStatus

    public struct PHYParameters: Sendable, Hashable {
        /// Scan interval and window in 0.625 ms units.
        public var scanInterval: UInt16
        public var scanWindow: UInt16
        public var connection: LEConnectionParameters
        public init(scanInterval: UInt16, scanWindow: UInt16, connection: LEConnectionParameters) {
            self.scanInterval = scanInterval
            self.scanWindow = scanWindow
            self.connection = connection
        }
    }

    public var initiatorFilterPolicy: UInt8
    public var ownAddressType: LEOwnAddressType
    public var peerAddressType: LEAddressType
    public var peerAddress: BluetoothAddress
    public var le1M: PHYParameters?
    public var le2M: PHYParameters?
    public var leCoded: PHYParameters?

    public init(initiatorFilterPolicy: UInt8 = 0, ownAddressType: LEOwnAddressType = .public,
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

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(initiatorFilterPolicy)
        writer.write(ownAddressType.rawValue)
        writer.write(peerAddressType.rawValue)
        writer.write(peerAddress)
        var phys = LEPHYs()
        if le1M != nil { phys.insert(.le1M) }
        if le2M != nil { phys.insert(.le2M) }
        if leCoded != nil { phys.insert(.leCoded) }
        writer.write(phys.rawValue)
        // The per-PHY arrays follow the bit order of Initiating_PHYs.
        for parameters in [le1M, le2M, leCoded].compactMap({ $0 }) {
            writer.write(parameters.scanInterval)
            writer.write(parameters.scanWindow)
            parameters.connection.encode(into: &writer)
        }
    }
}

/// HCI_LE_Create_Connection_Cancel. Answered by Command Complete; the pending creation then
/// ends with a connection complete event whose status is Unknown Connection Identifier.
public struct HCILECreateConnectionCancel: HCICommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leCreateConnectionCancel
    public init() {}
}

/// HCI_Disconnect. Answered by Command Status; Disconnection Complete follows.
public struct HCIDisconnect: HCICommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.disconnect
    public static let completion = HCICommandCompletion.commandStatus

    public var connectionHandle: ConnectionHandle
    /// Usually Remote User Terminated Connection (0x13).
    public var reason: HCIStatus

    public init(connectionHandle: ConnectionHandle, reason: HCIStatus = .remoteUserTerminatedConnection) {
        self.connectionHandle = connectionHandle
        self.reason = reason
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(connectionHandle)
        writer.write(reason.rawValue)
    }
}

/// HCI_LE_Connection_Update. Answered by Command Status; LE Connection Update Complete follows.
public struct HCILEConnectionUpdate: HCICommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leConnectionUpdate
    public static let completion = HCICommandCompletion.commandStatus

    public var connectionHandle: ConnectionHandle
    public var connection: LEConnectionParameters

    public init(connectionHandle: ConnectionHandle, connection: LEConnectionParameters) {
        self.connectionHandle = connectionHandle
        self.connection = connection
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(connectionHandle)
        connection.encode(into: &writer)
    }
}

/// HCI_LE_Remote_Connection_Parameter_Request_Reply (Vol 4, Part E, 7.8.31): the host accepts
/// the peer's LL Connection Parameters Request, with these parameters (the ones asked for, or
/// narrowed to the host's policy). Returns the connection handle.
public struct HCILERemoteConnectionParameterRequestReply: HCICommand {
    public static let opcode = HCIOpcode.leRemoteConnectionParameterRequestReply

    public var connectionHandle: ConnectionHandle
    public var connection: LEConnectionParameters

    public init(connectionHandle: ConnectionHandle, connection: LEConnectionParameters) {
        self.connectionHandle = connectionHandle
        self.connection = connection
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(connectionHandle)
        connection.encode(into: &writer)
    }

    public static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> UInt16 {
        try reader.u16("Connection_Handle")
    }
}

/// HCI_LE_Remote_Connection_Parameter_Request_Negative_Reply (Vol 4, Part E, 7.8.32): the host
/// refuses the peer's request, usually with Unacceptable Connection Parameters (0x3B). Returns
/// the connection handle.
public struct HCILERemoteConnectionParameterRequestNegativeReply: HCICommand {
    public static let opcode = HCIOpcode.leRemoteConnectionParameterRequestNegativeReply

    public var connectionHandle: ConnectionHandle
    public var reason: HCIStatus

    public init(connectionHandle: ConnectionHandle, reason: HCIStatus = .unacceptableConnectionParameters) {
        self.connectionHandle = connectionHandle
        self.reason = reason
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(connectionHandle)
        writer.write(reason.rawValue)
    }

    public static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> UInt16 {
        try reader.u16("Connection_Handle")
    }
}

/// HCI_LE_Set_Data_Length: the largest link-layer payload (octets, 0x001B ... 0x00FB) and time
/// (µs, 0x0148 ... 0x4290) the controller should use. Returns the connection handle.
public struct HCILESetDataLength: HCICommand {
    public static let opcode = HCIOpcode.leSetDataLength

    public var connectionHandle: ConnectionHandle
    public var txOctets: UInt16
    public var txTime: UInt16

    public init(connectionHandle: ConnectionHandle, txOctets: UInt16, txTime: UInt16) {
        self.connectionHandle = connectionHandle
        self.txOctets = txOctets
        self.txTime = txTime
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(connectionHandle)
        writer.write(txOctets)
        writer.write(txTime)
    }

    public static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> UInt16 {
        try reader.u16("Connection_Handle")
    }
}

/// HCI_LE_Set_PHY. Answered by Command Status; LE PHY Update Complete follows.
public struct HCILESetPHY: HCICommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leSetPHY
    public static let completion = HCICommandCompletion.commandStatus

    public var connectionHandle: ConnectionHandle
    /// Bit 0: no TX preference; bit 1: no RX preference.
    public var allPHYs: UInt8
    public var txPHYs: LEPHYs
    public var rxPHYs: LEPHYs
    /// For LE Coded: 0 no preference, 1 S=2, 2 S=8.
    public var phyOptions: UInt16

    public init(connectionHandle: ConnectionHandle, allPHYs: UInt8 = 0, txPHYs: LEPHYs, rxPHYs: LEPHYs, phyOptions: UInt16 = 0) {
        self.connectionHandle = connectionHandle
        self.allPHYs = allPHYs
        self.txPHYs = txPHYs
        self.rxPHYs = rxPHYs
        self.phyOptions = phyOptions
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(connectionHandle)
        writer.write(allPHYs)
        writer.write(txPHYs.rawValue)
        writer.write(rxPHYs.rawValue)
        writer.write(phyOptions)
    }
}

/// HCI_LE_Read_PHY (Vol 4, Part E, 7.8.47): the PHY a connection uses in each direction.
public struct HCILEReadPHY: HCICommand {
    public static let opcode = HCIOpcode.leReadPHY

    public var connectionHandle: ConnectionHandle

    public init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(connectionHandle)
    }

    public static func decodeReturnParameters(_ reader: inout HCIFieldReader) throws(HCIError) -> (tx: LEPHY, rx: LEPHY) {
        _ = try reader.u16("Connection_Handle")
        return (LEPHY(rawValue: try reader.u8("TX_PHY")), LEPHY(rawValue: try reader.u8("RX_PHY")))
    }
}

/// HCI_LE_Read_Remote_Features. Answered by Command Status; LE Read Remote Features Complete follows.
public struct HCILEReadRemoteFeatures: HCICommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.leReadRemoteFeatures
    public static let completion = HCICommandCompletion.commandStatus

    public var connectionHandle: ConnectionHandle
    public init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }
    public func encodeParameters(into writer: inout ByteWriter) { writer.write(connectionHandle) }
}

/// HCI_Read_Remote_Version_Information. Answered by Command Status; Read Remote Version
/// Information Complete follows.
public struct HCIReadRemoteVersionInformation: HCICommand {
    public typealias ReturnParameters = Void
    public static let opcode = HCIOpcode.readRemoteVersionInformation
    public static let completion = HCICommandCompletion.commandStatus

    public var connectionHandle: ConnectionHandle
    public init(connectionHandle: ConnectionHandle) { self.connectionHandle = connectionHandle }
    public func encodeParameters(into writer: inout ByteWriter) { writer.write(connectionHandle) }
}
