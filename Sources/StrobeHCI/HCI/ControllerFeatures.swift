/// The LMP features page 0 of Read Local Supported Features (Core Specification Vol 2, Part C, 3.3).
public struct LMPFeatures: OptionSet, Sendable, Hashable {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let encryption = LMPFeatures(rawValue: 1 << 2)
    /// BR/EDR Not Supported: an LE-only controller.
    public static let brEdrNotSupported = LMPFeatures(rawValue: 1 << 37)
    /// LE Supported (Controller).
    public static let leSupportedController = LMPFeatures(rawValue: 1 << 38)
}

/// The LE features of the local controller or a peer (Core Specification Vol 6, Part B, 4.6).
public struct LEFeatures: OptionSet, Sendable, Hashable {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let encryption = LEFeatures(rawValue: 1 << 0)
    public static let connectionParametersRequestProcedure = LEFeatures(rawValue: 1 << 1)
    public static let extendedRejectIndication = LEFeatures(rawValue: 1 << 2)
    public static let peripheralInitiatedFeaturesExchange = LEFeatures(rawValue: 1 << 3)
    public static let ping = LEFeatures(rawValue: 1 << 4)
    public static let dataPacketLengthExtension = LEFeatures(rawValue: 1 << 5)
    public static let llPrivacy = LEFeatures(rawValue: 1 << 6)
    public static let extendedScanningFilterPolicies = LEFeatures(rawValue: 1 << 7)
    public static let le2MPHY = LEFeatures(rawValue: 1 << 8)
    public static let stableModulationIndexTransmitter = LEFeatures(rawValue: 1 << 9)
    public static let stableModulationIndexReceiver = LEFeatures(rawValue: 1 << 10)
    public static let leCodedPHY = LEFeatures(rawValue: 1 << 11)
    public static let extendedAdvertising = LEFeatures(rawValue: 1 << 12)
    public static let periodicAdvertising = LEFeatures(rawValue: 1 << 13)
    public static let channelSelectionAlgorithm2 = LEFeatures(rawValue: 1 << 14)
    public static let powerClass1 = LEFeatures(rawValue: 1 << 15)
}
