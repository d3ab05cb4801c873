import StrobeHost

/// A peer's primary services, discovered once, looked up by the profiles' UUIDs.
struct PeerServices {
    let gatt: GATTClient
    let services: [GATTService]

    static func discover(_ gatt: GATTClient) async throws -> PeerServices {
        PeerServices(gatt: gatt, services: try await gatt.discoverPrimaryServices())
    }

    func service(_ uuid: BluetoothUUID) -> GATTService? {
        let target = uuid
        return services.first { $0.uuid == target }
    }

    /// The characteristic in `service`, when both exist.
    func characteristic(_ uuid: BluetoothUUID, in service: GATTService?) async throws -> GATTCharacteristic? {
        guard let service else { return nil }
        let target = uuid
        return try await gatt.discoverCharacteristics(of: service).first { $0.uuid == target }
    }

    var uuidDescriptions: [String] { services.map(\.uuid.description) }
}
