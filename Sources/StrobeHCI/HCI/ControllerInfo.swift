/// What the init sequence learned about the controller.
public struct ControllerInfo: Sendable, Hashable {
    /// The controller's public device address, from Read BD_ADDR; 00:00:00:00:00:00 when the
    /// controller has no public address.
    public var address: BluetoothAddress
    package var version: LocalVersionInformation
    package var supportedCommands: HCISupportedCommands
    package var lmpFeatures: LMPFeatures
    package var leFeatures: LEFeatures
    /// LE Read Buffer Size as returned ([v2] when the controller supports it).
    package var leBufferSize: LEBufferSize
    /// The longest ACL payload one packet to the controller may carry.
    public var leACLDataPacketLength: Int
    /// How many ACL packets the controller buffers: the host's ACL credits.
    public var totalNumLEACLDataPackets: Int
    /// True when the controller reported no separate LE buffers and the BR/EDR ones
    /// (Read Buffer Size) are used.
    public var usesBREDRBuffers: Bool

    package init(address: BluetoothAddress, version: LocalVersionInformation, supportedCommands: HCISupportedCommands,
                lmpFeatures: LMPFeatures, leFeatures: LEFeatures, leBufferSize: LEBufferSize,
                leACLDataPacketLength: Int, totalNumLEACLDataPackets: Int, usesBREDRBuffers: Bool) {
        self.address = address
        self.version = version
        self.supportedCommands = supportedCommands
        self.lmpFeatures = lmpFeatures
        self.leFeatures = leFeatures
        self.leBufferSize = leBufferSize
        self.leACLDataPacketLength = leACLDataPacketLength
        self.totalNumLEACLDataPackets = totalNumLEACLDataPackets
        self.usesBREDRBuffers = usesBREDRBuffers
    }

    /// The manufacturer's company identifier (Assigned Numbers), from Read Local Version Information.
    public var manufacturer: UInt16 { version.companyIdentifier }

    package func supports(_ command: HCISupportedCommands.Bit) -> Bool { supportedCommands.contains(command) }

    /// Whether the controller supports both LE Set Extended Scan Parameters (0x2041) and LE Set
    /// Extended Scan Enable (0x2042), by its Read Local Supported Commands bitmap.
    public var supportsExtendedScanning: Bool { supportedCommands.supportsExtendedScanning }

    /// Whether the controller supports LE Extended Create Connection (0x2043), by its Read Local
    /// Supported Commands bitmap.
    public var supportsExtendedCreateConnection: Bool { supportedCommands.contains(.leExtendedCreateConnection) }
}
