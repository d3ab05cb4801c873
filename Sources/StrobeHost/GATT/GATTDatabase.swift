/// A client's picture of a server's attributes: services, their characteristics and
/// descriptors, in handle order. Valid until a Service Changed indication says otherwise.
public struct GATTDatabase: Hashable, Sendable, Codable {
    /// A characteristic with the descriptors discovered between its value and its end handle.
    public struct Characteristic: Hashable, Sendable, Codable {
        /// The characteristic's declaration: UUID, properties and handles.
        public var characteristic: GATTCharacteristic
        /// Its descriptors in handle order; empty when it has none.
        public var descriptors: [GATTDescriptor]

        /// Creates an entry from a discovered characteristic and its descriptors.
        public init(characteristic: GATTCharacteristic, descriptors: [GATTDescriptor]) {
            self.characteristic = characteristic
            self.descriptors = descriptors
        }

        /// The first descriptor of type `uuid`, or nil when there is none.
        public func descriptor(_ uuid: BluetoothUUID) -> GATTDescriptor? { descriptors.first { $0.uuid == uuid } }
    }

    /// A service with its include declarations and characteristics.
    public struct Service: Hashable, Sendable, Codable {
        /// The service's UUID and handle range.
        public var service: GATTService
        /// The services this one includes, in handle order.
        public var includedServices: [GATTIncludedService]
        /// The service's characteristics, in handle order.
        public var characteristics: [Characteristic]

        /// Creates an entry; include declarations and characteristics default to none.
        public init(service: GATTService, includedServices: [GATTIncludedService] = [], characteristics: [Characteristic] = []) {
            self.service = service
            self.includedServices = includedServices
            self.characteristics = characteristics
        }

        /// The first characteristic of type `uuid` in this service, or nil when there is none.
        public func characteristic(_ uuid: BluetoothUUID) -> Characteristic? {
            characteristics.first { $0.characteristic.uuid == uuid }
        }
    }

    /// The primary services, in order of start handle (secondary ones appear only as includes).
    public var services: [Service]

    /// Creates a database from `services`, sorting them by start handle.
    public init(services: [Service] = []) { self.services = services.sorted { $0.service.startHandle < $1.service.startHandle } }

    /// The first service of type `uuid` (the lowest start handle), or nil when there is none.
    public func service(_ uuid: BluetoothUUID) -> Service? { services.first { $0.service.uuid == uuid } }

    /// The first characteristic of type `uuid` in the first service of type `service`, or nil.
    public func characteristic(_ uuid: BluetoothUUID, inService service: BluetoothUUID) -> Characteristic? {
        self.service(service)?.characteristic(uuid)
    }

    /// The characteristic whose value attribute is `valueHandle`, e.g. to name the source of a
    /// notification; nil when no characteristic has that value handle.
    public func characteristic(valueHandle: AttributeHandle) -> Characteristic? {
        for service in services where service.service.handles.contains(valueHandle) {
            if let found = service.characteristics.first(where: { $0.characteristic.valueHandle == valueHandle }) { return found }
        }
        return nil
    }

    /// Drops the services that overlap `range`; returns the handles they covered together with `range`.
    mutating func remove(overlapping range: ClosedRange<AttributeHandle>) -> ClosedRange<AttributeHandle> {
        var lower = range.lowerBound, upper = range.upperBound
        services.removeAll { entry in
            guard entry.service.handles.overlaps(range) else { return false }
            lower = min(lower, entry.service.startHandle)
            upper = max(upper, entry.service.endHandle)
            return true
        }
        return lower...upper
    }

    mutating func insert(_ new: [Service]) {
        services.append(contentsOf: new)
        services.sort { $0.service.startHandle < $1.service.startHandle }
    }
}

/// What happened to a client's cached database.
package enum GATTDatabaseEvent: Sendable {
    /// A Service Changed indication invalidated the services overlapping this range.
    case invalidated(ClosedRange<AttributeHandle>)
    /// The range was discovered again and the cache holds the result.
    case rediscovered(ClosedRange<AttributeHandle>)
    /// Rediscovery failed; the services of the range stay out of the cache.
    case rediscoveryFailed(ClosedRange<AttributeHandle>, any Error)
}
