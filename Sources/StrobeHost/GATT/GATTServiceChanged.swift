import StrobeHCI

/// Service Changed (Vol 3, Part G, 7.1): an indication of 0x2A05 in service 0x1801 carries the
/// affected handle range; the client drops the cached services that overlap it and discovers
/// the range again, one rediscovery after another.
extension GATTClient {
    func armServiceChanged(in database: GATTDatabase, subscribe: Bool) async throws {
        guard let entry = database.characteristic(.serviceChanged, inService: .genericAttributeService) else { return }
        let characteristic = entry.characteristic
        let previous = state.withLock { state in
            defer {
                state.serviceChangedHandle = characteristic.valueHandle
                state.subscribeToServiceChanged = subscribe
            }
            return state.serviceChangedHandle
        }
        if let previous, previous != characteristic.valueHandle {
            bearer.setValueHandler(nil, forHandle: previous)
        }
        bearer.setValueHandler(ServiceChangedHandler(client: self), forHandle: characteristic.valueHandle)
        if subscribe, characteristic.properties.contains(.indicate),
           let cccd = entry.descriptor(.clientCharacteristicConfiguration) {
            try await write(Self.encode(.indication), handle: cccd.handle)
        }
    }

    /// Called on the receive path with the indication's value.
    func serviceChangedIndicated(_ value: UnsafeRawBufferPointer) {
        var reader = ByteReader(value)
        guard value.count == 4, let start = reader.readAttributeHandle(), let end = reader.readAttributeHandle(), start != .reserved, start <= end else {
            state.withLock { $0.malformedServiceChanged &+= 1 }
            return
        }
        state.withLock { state in
            guard state.database != nil else { return }
            let affected = state.database?.remove(overlapping: start...end) ?? start...end
            // Yielded under the lock so that it precedes the rediscovery's own event.
            events.yield(.invalidated(affected))
            let previous = state.refresh
            state.refresh = Task(executorPreference: bearer.loop?.offLoopExecutor) {
                await previous?.value
                await self.rediscover(affected)
            }
        }
    }

    private func rediscover(_ range: ClosedRange<AttributeHandle>) async {
        do {
            let trees = try await discoverServiceTrees(in: range)
            let (database, subscribe, observer) = state.withLock { state in
                _ = state.database?.remove(overlapping: range)
                state.database?.insert(trees)
                return (state.database, state.subscribeToServiceChanged, state.onRediscovered)
            }
            if let database, trees.contains(where: { $0.service.uuid == .genericAttributeService }) {
                try await armServiceChanged(in: database, subscribe: subscribe)
            }
            if let database { observer?(database) }
            events.yield(.rediscovered(range))
        } catch {
            events.yield(.rediscoveryFailed(range, error))
        }
    }
}

/// Routes Service Changed indications to the client without keeping it alive.
final class ServiceChangedHandler: ATTValueHandler {
    weak let client: GATTClient?

    init(client: GATTClient) { self.client = client }

    func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) {
        client?.serviceChangedIndicated(value)
    }
}
