import StrobeHCI
import StrobeBase
import Synchronization

/// What the GAP service (0x1800, Vol 3, Part C, 12) tells a client about this device.
package struct GATTGenericAccess: Sendable, Hashable {
    /// Device Name (0x2A00), UTF-8, at most 248 octets.
    package var deviceName: String
    /// Appearance (0x2A01): the category and subcategory from the Assigned Numbers (0 = unknown).
    package var appearance: UInt16
    /// Peripheral Preferred Connection Parameters (0x2A04).
    package var preferredParameters: LEConnectionParameters

    /// Short intervals (7.5 to 15 ms), no skipped events, a 2 s supervision timeout: what a
    /// flash, a grip or a remote wants of its link.
    package static let lowLatencyParameters = LEConnectionParameters(intervalMin: 0x0006, intervalMax: 0x000C, maxLatency: 0, supervisionTimeout: 200)

    package init(deviceName: String, appearance: UInt16 = 0, preferredParameters: LEConnectionParameters = Self.lowLatencyParameters) {
        self.deviceName = deviceName
        self.appearance = appearance
        self.preferredParameters = preferredParameters
    }
}

/// The GAP service and the GATT service (0x1801, Vol 3, Part G, 7) a server offers every
/// client: Device Name, Appearance and Peripheral Preferred Connection Parameters; Service
/// Changed (indicate, with its CCCD), Client Supported Features (each client's own) and
/// Database Hash (computed over the table when read).
package final class GATTGenericServices: Sendable {
    package let deviceNameHandle: AttributeHandle
    package let appearanceHandle: AttributeHandle
    package let serviceChanged: GATTServerCharacteristic
    package let clientSupportedFeaturesHandle: AttributeHandle
    package let databaseHashHandle: AttributeHandle
    private let access: Lock<GATTGenericAccess>
    /// Client Supported Features, per client (Vol 3, Part G, 7.2).
    private let features = Lock<[GATTServerConnectionID: [UInt8]]>([:])

    /// Appends both services to `database`.
    package init(adding access: GATTGenericAccess, to database: GATTAttributeDatabase) {
        self.access = Lock(access)
        let box = WeakBox<GATTGenericServices>()
        database.addPrimaryService(.genericAccessService)
        deviceNameHandle = database.addCharacteristic(.deviceName, properties: .read) { _ in
            Array((box.value?.genericAccess.deviceName ?? "").utf8.prefix(248))
        }.valueHandle
        appearanceHandle = database.addCharacteristic(.appearance, properties: .read) { _ in
            let appearance = box.value?.genericAccess.appearance ?? 0
            return [UInt8(appearance & 0xFF), UInt8(appearance >> 8)]
        }.valueHandle
        database.addCharacteristic(.peripheralPreferredConnectionParameters, properties: .read) { _ in
            guard let p = box.value?.genericAccess.preferredParameters else { return [] }
            return [p.intervalMin, p.intervalMax, p.maxLatency, p.supervisionTimeout].flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        }
        database.addPrimaryService(.genericAttributeService)
        // Its value is the affected range, sent only in indications.
        serviceChanged = database.addCharacteristic(.serviceChanged, properties: .indicate, permissions: [])
        clientSupportedFeaturesHandle = database.addCharacteristic(
            .clientSupportedFeatures, properties: [.read, .write],
            onRead: { id in box.value?.features.withLock { $0[id] } ?? [0] },
            onWrite: { id, value in box.value?.clientWroteFeatures(value, connection: id) }
        ).valueHandle
        databaseHashHandle = database.addCharacteristic(.databaseHash, properties: .read) { [weak database] _ in
            database?.hash ?? []
        }.valueHandle
        box.value = self
    }

    package var genericAccess: GATTGenericAccess {
        get { access.withLock { $0 } }
        set { access.withLock { $0 = newValue } }
    }

    /// The features `connection`'s client enabled.
    package func clientSupportedFeatures(of connection: GATTServerConnectionID) -> [UInt8] {
        features.withLock { $0[connection] } ?? [0]
    }

    /// The link is gone: its client's features go with it.
    package func forget(_ connection: GATTServerConnectionID) {
        _ = features.withLock { $0.removeValue(forKey: connection) }
    }

    /// A client may set bits, never clear one it set (Value Not Allowed).
    private func clientWroteFeatures(_ value: [UInt8], connection: GATTServerConnectionID) -> ATTErrorCode? {
        guard !value.isEmpty else { return .invalidAttributeValueLength }
        return features.withLock { features in
            let old = features[connection] ?? []
            for (index, byte) in old.enumerated() where byte & ~(index < value.count ? value[index] : 0) != 0 {
                return ATTErrorCode.valueNotAllowed
            }
            features[connection] = value
            return nil
        }
    }
}

/// A reference that does not keep its object alive: the table's handlers point back at their
/// owner, which the table must not retain.
final class WeakBox<Object: AnyObject & Sendable>: Sendable {
    private let reference = Lock<Weak?>(nil)
    private struct Weak: @unchecked Sendable { weak var object: Object? }

    var value: Object? {
        get { reference.withLock { $0?.object } }
        set { reference.withLock { $0 = Weak(object: newValue) } }
    }
}
