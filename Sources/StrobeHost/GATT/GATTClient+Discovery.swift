/// Discovery procedures (Vol 3, Part G, 4.4 to 4.7). Each walks the handle range with repeated
/// requests until Attribute Not Found or the end of the range, and requires the server's
/// handles to move forward, so a hostile server cannot loop it.
extension GATTClient {
    /// 0x0001...0xFFFF, every handle a server can have: the default range of the discovery procedures.
    public static let fullRange: ClosedRange<AttributeHandle> = AttributeHandle.first...AttributeHandle.last

    /// Discover All Primary Services (Read By Group Type on 0x2800).
    public func discoverPrimaryServices(in range: ClosedRange<AttributeHandle> = GATTClient.fullRange) async throws(StrobeError) -> [GATTService] {
        try await filingErrors {
            var services: [GATTService] = []
            var cursor = HandleCursor(range)
            while let start = cursor.next {
                let response: ATTReadByGroupTypeResponse
                do {
                    response = try await bearer.request(ATTReadByGroupTypeRequest(
                        startingHandle: start, endingHandle: range.upperBound, attributeGroupType: .primaryService))
                } catch let error as ATTError where error.code == .attributeNotFound {
                    break
                }
                for entry in response.entries {
                    try cursor.advance(past: entry.handle, to: entry.endGroupHandle, in: .readByGroupTypeResponse)
                    guard let uuid = BluetoothUUID(attBytes: entry.value) else {
                        throw GATTError.invalidResponse(.readByGroupTypeResponse, reason: "service UUID of \(entry.value.count) bytes at \(entry.handle)")
                    }
                    services.append(GATTService(uuid: uuid, startHandle: entry.handle, endHandle: entry.endGroupHandle))
                }
            }
            return services
        }
    }

    /// Discover Primary Service by Service UUID (Find By Type Value on 0x2800).
    public func discoverPrimaryServices(uuid: BluetoothUUID, in range: ClosedRange<AttributeHandle> = GATTClient.fullRange) async throws(StrobeError) -> [GATTService] {
        try await filingErrors {
            var services: [GATTService] = []
            var cursor = HandleCursor(range)
            while let start = cursor.next {
                let response: ATTFindByTypeValueResponse
                do {
                    response = try await bearer.request(ATTFindByTypeValueRequest(
                        startingHandle: start, endingHandle: range.upperBound,
                        attributeType: 0x2800, attributeValue: uuid.attBytes))
                } catch let error as ATTError where error.code == .attributeNotFound {
                    break
                }
                for entry in response.handles {
                    try cursor.advance(past: entry.foundAttributeHandle, to: entry.groupEndHandle, in: .findByTypeValueResponse)
                    services.append(GATTService(uuid: uuid, startHandle: entry.foundAttributeHandle, endHandle: entry.groupEndHandle))
                }
            }
            return services
        }
    }

    /// Find Included Services (Read By Type on 0x2802; a 128-bit UUID is read from the
    /// included service's declaration).
    public func discoverIncludedServices(of service: GATTService) async throws(StrobeError) -> [GATTIncludedService] {
        try await filingErrors {
            let entries = try await readByTypeAll(.include, in: service.handles)
            var included: [GATTIncludedService] = []
            for entry in entries {
                let value = entry.value
                guard value.count == 6 || value.count == 4 else {
                    throw GATTError.invalidResponse(.readByTypeResponse, reason: "include declaration of \(value.count) bytes at \(entry.handle)")
                }
                let start = AttributeHandle(UInt16(value[0]) | UInt16(value[1]) << 8)
                let end = AttributeHandle(UInt16(value[2]) | UInt16(value[3]) << 8)
                guard start != 0, start <= end else {
                    throw GATTError.invalidResponse(.readByTypeResponse, reason: "include at \(entry.handle) has range \(start)-\(end)")
                }
                var serviceUUID = BluetoothUUID(value.count == 6 ? UInt16(value[4]) | UInt16(value[5]) << 8 : 0)
                if entry.value.count == 4 {
                    let declaration = try await read(handle: start)
                    guard declaration.count == 16, let full = BluetoothUUID(attBytes: declaration) else {
                        throw GATTError.invalidResponse(.readResponse, reason: "included service declaration of \(declaration.count) bytes at \(start)")
                    }
                    serviceUUID = full
                }
                included.append(GATTIncludedService(
                    declarationHandle: entry.handle, service: GATTService(uuid: serviceUUID, startHandle: start, endHandle: end)))
            }
            return included
        }
    }

    /// Discover All Characteristics of a Service, or by UUID (the same walk, filtered, since a
    /// characteristic's end handle comes from the next declaration).
    public func discoverCharacteristics(of service: GATTService, uuid: BluetoothUUID? = nil) async throws(StrobeError) -> [GATTCharacteristic] {
        try await filingErrors {
            let entries = try await readByTypeAll(.characteristic, in: service.handles)
            var declarations: [(handle: AttributeHandle, properties: GATTCharacteristicProperties, valueHandle: AttributeHandle, uuid: BluetoothUUID)] = []
            for entry in entries {
                let count = entry.value.count
                guard count == 5 || count == 19 else {
                    throw GATTError.invalidResponse(.readByTypeResponse, reason: "characteristic declaration of \(count) bytes at \(entry.handle)")
                }
                let properties = GATTCharacteristicProperties(rawValue: entry.value[0])
                let valueHandle = AttributeHandle(UInt16(entry.value[1]) | UInt16(entry.value[2]) << 8)
                guard let uuid = BluetoothUUID(attBytes: Array(entry.value[3...])) else {
                    throw GATTError.invalidResponse(.readByTypeResponse, reason: "characteristic UUID at \(entry.handle)")
                }
                guard valueHandle > entry.handle, valueHandle <= service.endHandle else {
                    throw GATTError.invalidResponse(.readByTypeResponse, reason: "characteristic at \(entry.handle) has value handle \(valueHandle)")
                }
                declarations.append((entry.handle, properties, valueHandle, uuid))
            }
            var characteristics: [GATTCharacteristic] = []
            for (index, declaration) in declarations.enumerated() {
                let end = index + 1 < declarations.count ? declarations[index + 1].handle.advanced(by: -1) : service.endHandle
                guard declaration.valueHandle <= end else {
                    throw GATTError.invalidResponse(.readByTypeResponse, reason: "characteristic value \(declaration.valueHandle) overlaps the next declaration")
                }
                characteristics.append(GATTCharacteristic(
                    uuid: declaration.uuid, properties: declaration.properties,
                    declarationHandle: declaration.handle, valueHandle: declaration.valueHandle, endHandle: end))
            }
            guard let uuid else { return characteristics }
            return characteristics.filter { $0.uuid == uuid }
        }
    }

    /// Discover All Characteristic Descriptors (Find Information after the value handle).
    public func discoverDescriptors(of characteristic: GATTCharacteristic) async throws(StrobeError) -> [GATTDescriptor] {
        try await filingErrors {
            guard let range = characteristic.descriptorHandles else { return [] }
            var descriptors: [GATTDescriptor] = []
            var cursor = HandleCursor(range)
            while let start = cursor.next {
                let response: ATTFindInformationResponse
                do {
                    response = try await bearer.request(ATTFindInformationRequest(startingHandle: start, endingHandle: range.upperBound))
                } catch let error as ATTError where error.code == .attributeNotFound {
                    break
                }
                for entry in response.entries {
                    try cursor.advance(past: entry.handle, to: entry.handle, in: .findInformationResponse)
                    descriptors.append(GATTDescriptor(uuid: entry.uuid, handle: entry.handle))
                }
            }
            return descriptors
        }
    }

    /// Discovers every primary service with its included services, characteristics and
    /// descriptors, caches the result and arms Service Changed handling: its value handle is
    /// routed to the client and, when `subscribeToServiceChanged`, its indications enabled.
    @discardableResult
    public func discoverDatabase(subscribeToServiceChanged: Bool = true) async throws(StrobeError) -> GATTDatabase {
        try await filingErrors {
            let services = try await discoverServiceTrees(in: Self.fullRange)
            let database = GATTDatabase(services: services)
            state.withLock { $0.database = database }
            try await armServiceChanged(in: database, subscribe: subscribeToServiceChanged)
            return database
        }
    }

    func discoverServiceTrees(in range: ClosedRange<AttributeHandle>) async throws -> [GATTDatabase.Service] {
        var trees: [GATTDatabase.Service] = []
        for service in try await discoverPrimaryServices(in: range) {
            let included = try await discoverIncludedServices(of: service)
            var characteristics: [GATTDatabase.Characteristic] = []
            for characteristic in try await discoverCharacteristics(of: service) {
                characteristics.append(.init(characteristic: characteristic, descriptors: try await discoverDescriptors(of: characteristic)))
            }
            trees.append(.init(service: service, includedServices: included, characteristics: characteristics))
        }
        return trees
    }

    /// Read By Type repeated over a range, each next request after the last handle returned.
    func readByTypeAll(_ type: BluetoothUUID, in range: ClosedRange<AttributeHandle>) async throws -> [ATTHandleValue] {
        var entries: [ATTHandleValue] = []
        var cursor = HandleCursor(range)
        while let start = cursor.next {
            let response: ATTReadByTypeResponse
            do {
                response = try await bearer.request(ATTReadByTypeRequest(startingHandle: start, endingHandle: range.upperBound, attributeType: type))
            } catch let error as ATTError where error.code == .attributeNotFound {
                break
            }
            for entry in response.entries {
                try cursor.advance(past: entry.handle, to: entry.handle, in: .readByTypeResponse)
                entries.append(entry)
            }
        }
        return entries
    }
}

/// Walks a handle range forward: every handle the server returns must lie at or after the
/// cursor and inside the range, and the walk ends after the range's last handle.
struct HandleCursor {
    let range: ClosedRange<AttributeHandle>
    private(set) var next: AttributeHandle?

    init(_ range: ClosedRange<AttributeHandle>) {
        self.range = range
        next = range.lowerBound == .reserved ? nil : range.lowerBound
    }

    mutating func advance(past handle: AttributeHandle, to groupEnd: AttributeHandle, in opcode: ATTOpcode) throws(GATTError) {
        guard let start = next else {
            throw .invalidResponse(opcode, reason: "handle \(handle) after the end of the range")
        }
        guard handle >= start, handle <= range.upperBound, groupEnd >= handle else {
            throw .invalidResponse(opcode, reason: "handle \(handle)-\(groupEnd) out of order (expected at or after \(start) up to \(range.upperBound))")
        }
        next = groupEnd < range.upperBound ? groupEnd.advanced(by: 1) : nil
    }
}
