/// Notifications and indications (Vol 3, Part G, 4.10, 4.11, 4.12.3).
extension GATTClient {
    /// Routes the characteristic's values to `handler`, then enables them by writing its
    /// Client Characteristic Configuration descriptor. The route is removed again if the write fails.
    public func subscribe(
        _ characteristic: GATTCharacteristic,
        to configuration: GATTClientConfiguration = .notification,
        handler: any ATTValueHandler
    ) async throws(StrobeError) {
        try await filingErrors {
            if configuration.contains(.notification), !characteristic.properties.contains(.notify) {
                throw GATTError.propertyNotSupported(.notify, valueHandle: characteristic.valueHandle)
            }
            if configuration.contains(.indication), !characteristic.properties.contains(.indicate) {
                throw GATTError.propertyNotSupported(.indicate, valueHandle: characteristic.valueHandle)
            }
            let cccd = try await clientConfigurationHandle(of: characteristic)
            bearer.setValueHandler(handler, forHandle: characteristic.valueHandle)
            do {
                try await write(Self.encode(configuration), handle: cccd)
            } catch {
                bearer.setValueHandler(nil, forHandle: characteristic.valueHandle)
                throw error
            }
        }
    }

    /// Disables notifications and indications (CCCD 0x0000), then removes the route.
    public func unsubscribe(_ characteristic: GATTCharacteristic) async throws(StrobeError) {
        try await filingErrors {
            defer { bearer.setValueHandler(nil, forHandle: characteristic.valueHandle) }
            let cccd = try await clientConfigurationHandle(of: characteristic)
            try await write(Self.encode([]), handle: cccd)
        }
    }

    /// The CCCD's handle, from the cache or by discovering the characteristic's descriptors.
    func clientConfigurationHandle(of characteristic: GATTCharacteristic) async throws -> AttributeHandle {
        let cached = database?.characteristic(valueHandle: characteristic.valueHandle)
        let descriptors: [GATTDescriptor]
        if let cached, cached.characteristic == characteristic {
            descriptors = cached.descriptors
        } else {
            descriptors = try await discoverDescriptors(of: characteristic)
        }
        guard let cccd = descriptors.first(where: { $0.uuid == .clientCharacteristicConfiguration }) else {
            throw GATTError.noClientCharacteristicConfiguration(valueHandle: characteristic.valueHandle)
        }
        return cccd.handle
    }

    static func encode(_ configuration: GATTClientConfiguration) -> [UInt8] {
        [UInt8(truncatingIfNeeded: configuration.rawValue), UInt8(truncatingIfNeeded: configuration.rawValue >> 8)]
    }
}
