/// Characteristic value writes (Vol 3, Part G, 4.9).
extension GATTClient {
    /// Write Characteristic Value: one Write Request, value up to ATT_MTU - 3.
    public func write(_ value: [UInt8], handle: AttributeHandle) async throws(StrobeError) {
        try await filingErrors {
            _ = try await bearer.request(ATTWriteRequest(handle: handle, value: value))
        }
    }

    /// A Write Request readied now and sent later, at a trigger, by `ATTArmedWrite.fire()` (no
    /// lock, no allocation then). `nil` when the value does not fit one ACL packet or no buffer
    /// is free; see `ATTBearer.armWrite(_:onDisarmed:)`.
    public func armWrite(_ value: [UInt8], handle: AttributeHandle, onDisarmed: @escaping @Sendable () -> Void) async throws(StrobeError) -> ATTArmedWrite? {
        try await filingErrors {
            try await bearer.armWrite(ATTWriteRequest(handle: handle, value: value), onDisarmed: onDisarmed)
        }
    }

    /// Write Without Response: one Write Command, value up to ATT_MTU - 3. Suspends while ACL
    /// flow control holds it back; never dropped by the host.
    public func writeWithoutResponse(_ value: [UInt8], handle: AttributeHandle) async throws(StrobeError) {
        try await filingErrors {
            try await bearer.send(ATTWriteCommand(handle: handle, value: value))
        }
    }

    /// Writes with the procedure that fits: Write Command or Write Request when the value fits
    /// one PDU, a long write when a response is wanted and it does not. Returns the procedure used.
    @discardableResult
    public func write(_ value: [UInt8], handle: AttributeHandle, withResponse: Bool) async throws(StrobeError) -> GATTWriteProcedure {
        try await filingErrors {
            let procedure = try GATTWriteProcedure.choose(length: value.count, mtu: bearer.mtu, withResponse: withResponse)
            switch procedure {
            case .writeWithoutResponse: try await writeWithoutResponse(value, handle: handle)
            case .writeRequest: try await write(value, handle: handle)
            case .longWrite: try await writeLong(value, handle: handle)
            }
            return procedure
        }
    }

    /// Write Long Characteristic Values: Prepare Write Requests of ATT_MTU - 5 bytes, each echo
    /// checked against what was sent, then Execute Write. A mismatch or an Error Response
    /// cancels the server's queue (Execute Write 0x00) before the error is thrown.
    public func writeLong(_ value: [UInt8], handle: AttributeHandle) async throws(StrobeError) {
        try await filingErrors {
            guard value.count <= GATTWriteProcedure.maximumValueLength else {
                throw GATTError.valueTooLong(length: value.count, limit: GATTWriteProcedure.maximumValueLength)
            }
            try state.withLock { state throws(GATTError) in
                guard !state.longWriteInProgress else { throw .longWriteInProgress }
                state.longWriteInProgress = true
            }
            var offset = 0
            repeat {
                let end = min(value.count, offset + max(1, bearer.mtu - 5))
                let piece = Array(value[offset..<end])
                let request = ATTPrepareWriteRequest(handle: handle, offset: UInt16(offset), value: piece)
                let response: ATTPrepareWriteResponse
                do {
                    response = try await bearer.request(request)
                } catch {
                    // The server may hold earlier pieces (or this one); a closed bearer can send nothing.
                    await abandonLongWrite(cancelQueue: !bearer.isClosed)
                    throw error
                }
                guard response.handle == handle, response.offset == request.offset, response.value == piece else {
                    await abandonLongWrite(cancelQueue: true)
                    throw GATTError.preparedWriteMismatch(handle: handle, offset: request.offset)
                }
                offset = end
            } while offset < value.count
            do {
                _ = try await bearer.request(ATTExecuteWriteRequest(flags: .write))
            } catch {
                releaseLongWrite()
                throw error
            }
            releaseLongWrite()
        }
    }

    /// Empties the server's prepare queue (when it may hold our pieces), then frees the queue
    /// for the next long write. A cancelled task cannot wait, so the bearer is only handed the
    /// request then, and the queue is freed when it is answered.
    private func abandonLongWrite(cancelQueue: Bool) async {
        guard cancelQueue else { return releaseLongWrite() }
        let cancel = ATTExecuteWriteRequest(flags: .cancel)
        if Task.isCancelled {
            bearer.post(cancel) { _ in self.releaseLongWrite() }
        } else {
            _ = try? await bearer.request(cancel)
            releaseLongWrite()
        }
    }

    private func releaseLongWrite() {
        state.withLock { $0.longWriteInProgress = false }
    }
}
