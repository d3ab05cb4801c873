/// Characteristic value reads (Vol 3, Part G, 4.8).
extension GATTClient {
    /// Read Characteristic Value: one Read Request (at most ATT_MTU - 1 bytes come back).
    public func read(handle: AttributeHandle) async throws(StrobeError) -> [UInt8] {
        try await filingErrors {
            try await bearer.request(ATTReadRequest(handle: handle)).value
        }
    }

    /// Read Long Characteristic Values: a Read Request, then Read Blob Requests from the end of
    /// what arrived until a piece is shorter than ATT_MTU - 1. Attribute Not Long or Invalid
    /// Offset on a blob means the value ended exactly on a piece boundary.
    public func readLong(handle: AttributeHandle) async throws(StrobeError) -> [UInt8] {
        try await filingErrors {
            var value = try await read(handle: handle)
            var full = value.count >= bearer.mtu - 1
            while full {
                guard value.count <= GATTWriteProcedure.maximumValueLength else {
                    throw GATTError.valueTooLong(length: value.count, limit: GATTWriteProcedure.maximumValueLength)
                }
                let piece: [UInt8]
                do {
                    piece = try await bearer.request(ATTReadBlobRequest(handle: handle, offset: UInt16(value.count))).value
                } catch let error as ATTError where error.code == .attributeNotLong || error.code == .invalidOffset {
                    break
                }
                value += piece
                full = piece.count >= bearer.mtu - 1
            }
            guard value.count <= GATTWriteProcedure.maximumValueLength else {
                throw GATTError.valueTooLong(length: value.count, limit: GATTWriteProcedure.maximumValueLength)
            }
            return value
        }
    }

    /// Read Using Characteristic UUID: the handle and value of every attribute of `uuid` in
    /// the range (each value at most ATT_MTU - 4 bytes).
    package func read(uuid: BluetoothUUID, in range: ClosedRange<AttributeHandle> = GATTClient.fullRange) async throws -> [ATTHandleValue] {
        try await readByTypeAll(uuid, in: range)
    }

    /// Read Multiple Characteristic Values: the values concatenated, in the order of `handles`
    /// (only values of known length can be told apart).
    public func readMultiple(handles: [AttributeHandle]) async throws(StrobeError) -> [UInt8] {
        try await filingErrors {
            guard handles.count >= 2 else { throw GATTError.tooFewHandles(handles.count) }
            return try await bearer.request(ATTReadMultipleRequest(handles: handles)).values
        }
    }
}
