import StrobeSecurity

/// Database Hash (Vol 3, Part G, 7.3): AES-CMAC with a key of zeros over every service,
/// include and characteristic declaration and Characteristic Extended Properties descriptor
/// (handle, type, value) and every User Description, CCCD, SCCD, Presentation Format and
/// Aggregate Format descriptor (handle, type), in handle order; other attributes add nothing.
/// Both sides compute it: the server over its table, the client over what it discovered.
package enum GATTDatabaseHash {
    /// One attribute as the hash sees it. `value` matters only for the declarations and the
    /// extended properties descriptor.
    package struct Attribute: Sendable, Hashable {
        package var handle: AttributeHandle
        package var type: BluetoothUUID
        package var value: [UInt8]

        package init(handle: AttributeHandle, type: BluetoothUUID, value: [UInt8] = []) {
            self.handle = handle
            self.type = type
            self.value = value
        }
    }

    private static let withValue: Set<BluetoothUUID> = [.primaryService, .secondaryService, .include, .characteristic,
                                                         .characteristicExtendedProperties]
    private static let withoutValue: Set<BluetoothUUID> = [.characteristicUserDescription, .clientCharacteristicConfiguration,
                                                            .serverCharacteristicConfiguration, .characteristicPresentationFormat,
                                                            .characteristicAggregateFormat]

    /// The bytes the hash is computed over (types in the width the attribute has, values as stored).
    package static func message(_ attributes: [Attribute]) -> [UInt8] {
        var message: [UInt8] = []
        for attribute in attributes.sorted(by: { $0.handle < $1.handle }) {
            let with = withValue.contains(attribute.type)
            guard with || withoutValue.contains(attribute.type) else { continue }
            message += [UInt8(attribute.handle.rawValue & 0xFF), UInt8(attribute.handle.rawValue >> 8)]
            message += attribute.type.attBytes
            if with { message += attribute.value }
        }
        return message
    }

    /// The hash as the characteristic carries it: 16 octets, least significant first.
    package static func hash(_ attributes: [Attribute]) -> [UInt8] {
        // A 16-octet zero key cannot fail the length check.
        let cmac = (try? SMPCrypto.aesCMAC(key: [UInt8](repeating: 0, count: 16), message(attributes))) ?? []
        return cmac.reversed()
    }
}

extension GATTDatabase {
    /// The attributes the Database Hash covers, as discovery found them. The client does not
    /// learn Extended Properties values by discovery: pass them (read from each 0x2900
    /// descriptor) in `extendedProperties`; a missing one counts as empty.
    package func hashAttributes(extendedProperties: [AttributeHandle: [UInt8]] = [:]) -> [GATTDatabaseHash.Attribute] {
        var attributes: [GATTDatabaseHash.Attribute] = []
        for entry in services {
            let service = entry.service
            attributes.append(.init(handle: service.startHandle, type: .primaryService, value: service.uuid.attBytes))
            for include in entry.includedServices {
                var value = [UInt8(include.service.startHandle.rawValue & 0xFF), UInt8(include.service.startHandle.rawValue >> 8),
                             UInt8(include.service.endHandle.rawValue & 0xFF), UInt8(include.service.endHandle.rawValue >> 8)]
                if include.service.uuid.uuid16 != nil { value += include.service.uuid.attBytes }
                attributes.append(.init(handle: include.declarationHandle, type: .include, value: value))
            }
            for characteristic in entry.characteristics {
                let declaration = characteristic.characteristic
                let value = [declaration.properties.rawValue,
                             UInt8(declaration.valueHandle.rawValue & 0xFF), UInt8(declaration.valueHandle.rawValue >> 8)]
                    + declaration.uuid.attBytes
                attributes.append(.init(handle: declaration.declarationHandle, type: .characteristic, value: value))
                for descriptor in characteristic.descriptors {
                    attributes.append(.init(handle: descriptor.handle, type: descriptor.uuid,
                                            value: extendedProperties[descriptor.handle] ?? []))
                }
            }
        }
        return attributes
    }
}
