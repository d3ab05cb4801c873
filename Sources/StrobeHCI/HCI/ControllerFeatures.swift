/// The LMP features page 0 of Read Local Supported Features (Core Specification Vol 2, Part C, 3.3).
package struct LMPFeatures: OptionSet, Sendable, Hashable {
    package var rawValue: UInt64
    package init(rawValue: UInt64) { self.rawValue = rawValue }

    package static let encryption = LMPFeatures(rawValue: 1 << 2)
    /// BR/EDR Not Supported: an LE-only controller.
    package static let brEdrNotSupported = LMPFeatures(rawValue: 1 << 37)
    /// LE Supported (Controller).
    package static let leSupportedController = LMPFeatures(rawValue: 1 << 38)
}

/// The LE features of the local controller or a peer (Core Specification Vol 6, Part B, 4.6).
package struct LEFeatures: OptionSet, Sendable, Hashable {
    package var rawValue: UInt64
    package init(rawValue: UInt64) { self.rawValue = rawValue }

    package static let encryption = LEFeatures(rawValue: 1 << 0)
    package static let connectionParametersRequestProcedure = LEFeatures(rawValue: 1 << 1)
    package static let extendedRejectIndication = LEFeatures(rawValue: 1 << 2)
    package static let peripheralInitiatedFeaturesExchange = LEFeatures(rawValue: 1 << 3)
    package static let ping = LEFeatures(rawValue: 1 << 4)
    package static let dataPacketLengthExtension = LEFeatures(rawValue: 1 << 5)
    package static let llPrivacy = LEFeatures(rawValue: 1 << 6)
    package static let extendedScanningFilterPolicies = LEFeatures(rawValue: 1 << 7)
    package static let le2MPHY = LEFeatures(rawValue: 1 << 8)
    package static let stableModulationIndexTransmitter = LEFeatures(rawValue: 1 << 9)
    package static let stableModulationIndexReceiver = LEFeatures(rawValue: 1 << 10)
    package static let leCodedPHY = LEFeatures(rawValue: 1 << 11)
    package static let extendedAdvertising = LEFeatures(rawValue: 1 << 12)
    package static let periodicAdvertising = LEFeatures(rawValue: 1 << 13)
    package static let channelSelectionAlgorithm2 = LEFeatures(rawValue: 1 << 14)
    package static let powerClass1 = LEFeatures(rawValue: 1 << 15)
}
