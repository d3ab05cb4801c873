/// A client's picture of a server's attributes: services, their characteristics and
/// descriptors, in handle order. Valid until a Service Changed indication says otherwise.
public struct GATTDatabase: Hashable, Sendable, Codable {
    public struct Characteristic: Hashable, Sendable, Codable {
        public var characteristic: GATTCharacteristic
        public var descriptors: [GATTDescriptor]

        public init(characteristic: GATTCharacteristic, descriptors: [GATTDescriptor]) {
            self.characteristic = characteristic
            self.descriptors = descriptors
        }

        public func descriptor(_ uuid: BluetoothUUID) -> GATTDescriptor? { descriptors.first { $0.uuid == uuid } }
    }

    public struct Service: Hashable, Sendable, Codable {
        public var service: GATTService
        public var includedServices: [GATTIncludedService]
        public var characteristics: [Characteristic]

        public init(service: GATTService, includedServices: [GATTIncludedService] = [], characteristics: [Characteristic] = []) {
            self.service = service
            self.includedServices = includedServices
            self.characteristics = characteristics
        }

        public func characteristic(_ uuid: BluetoothUUID) -> Characteristic? {
            characteristics.first { $0.characteristic.uuid == uuid }
        }
    }

    public var services: [Service]

    public init(services: [Service] = []) { self.services = services.sorted { $0.service.startHandle < $1.service.startHandle } }

    public func service(_ uuid: BluetoothUUID) -> Service? { services.first { $0.service.uuid == uuid } }

    public func characteristic(_ uuid: BluetoothUUID, inService service: BluetoothUUID) -> Characteristic? {
        self.service(service)?.characteristic(uuid)
    }

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
