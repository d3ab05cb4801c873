import Testing
import StrobeHost

@Suite struct GATTReadWriteTests {
    @Test(arguments: [(23, 13), (247, 1)])
    func longReadReassemblesA300ByteValue(mtu: Int, blobs: Int) async throws {
        let h = ATTTestHarness(serverMTU: mtu, build: GATTTestDatabase.build)
        try await h.client.exchangeMTU()
        #expect(h.bearer.mtu == mtu)
        let value = try await h.client.readLong(handle: GATTTestDatabase.customLongHandle)
        #expect(value == GATTTestDatabase.longValue)
        #expect(h.server.count(.readRequest) == 1)
        #expect(h.server.count(.readBlobRequest) == blobs)
        // Each blob asks from where the value so far ends.
        let offsets = h.channel.sent(.readBlobRequest).map { UInt16($0[3]) | UInt16($0[4]) << 8 }
        #expect(offsets == (1...blobs).map { UInt16($0 * (mtu - 1)) })
    }

    @Test func longReadEndingOnAPieceBoundary() async throws {
        let h = ATTTestHarness { server in
            server.addService(BluetoothUUID(0x180A))
            server.add(BluetoothUUID(0x2A29), value: Array(repeating: 0x41, count: 44))  // 0x02: two full pieces
            server.add(BluetoothUUID(0x2A24), value: Array(repeating: 0x42, count: 22))  // 0x03: one full piece
        }
        // An empty Read Blob Response ends the first; Attribute Not Long ends the second.
        #expect(try await h.client.readLong(handle: 2) == Array(repeating: 0x41, count: 44))
        #expect(h.server.count(.readBlobRequest) == 2)
        h.server.answerAttributeNotLongOnShortBlobs()
        #expect(try await h.client.readLong(handle: 3) == Array(repeating: 0x42, count: 22))
        #expect(h.server.count(.readBlobRequest) == 3)
    }

    @Test func longReadStopsAServerThatNeverEnds() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        h.server.rewriteResponses { request, response in
            request.first == 0x0C ? [0x0D] + Array(repeating: 0xEE, count: 22) : response
        }
        await #expect(throws: StrobeError.gatt(GATTError.valueTooLong(length: 528, limit: 512))) {
            try await h.client.readLong(handle: GATTTestDatabase.customLongHandle)
        }
        #expect(h.server.count(.readBlobRequest) == 23)
    }

    @Test func readsByUUIDAndMultiple() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        #expect(try await h.client.read(uuid: BluetoothUUID(0x2A19)) == [ATTHandleValue(handle: 0x0B, value: [77])])
        #expect(try await h.client.readMultiple(handles: [0x03, 0x0B]) == Array("Strobe".utf8) + [77])
        await #expect(throws: StrobeError.gatt(GATTError.tooFewHandles(1))) { try await h.client.readMultiple(handles: [3]) }
        #expect(try await h.client.read(handle: 0x03) == Array("Strobe".utf8))
    }

    @Test(arguments: [(23, 6), (247, 1)])
    func longWritePreparesThenExecutes(mtu: Int, prepares: Int) async throws {
        let h = ATTTestHarness(serverMTU: mtu, build: GATTTestDatabase.build)
        try await h.client.exchangeMTU()
        let value: [UInt8] = (0..<100).map { UInt8($0) }
        try await h.client.writeLong(value, handle: GATTTestDatabase.customWriteHandle)
        #expect(h.server.value(at: GATTTestDatabase.customWriteHandle) == value)
        #expect(h.server.count(.prepareWriteRequest) == prepares)
        #expect(h.channel.sent(.executeWriteRequest) == [[0x18, 0x01]])
        // Pieces are ATT_MTU - 5 bytes at increasing offsets.
        let pieces = h.channel.sent(.prepareWriteRequest)
        #expect(pieces.dropLast().allSatisfy { $0.count == mtu })
        #expect(pieces.map { UInt16($0[3]) | UInt16($0[4]) << 8 } == (0..<prepares).map { UInt16($0 * (mtu - 5)) })
    }

    @Test func mismatchedPrepareEchoCancelsTheQueue() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        h.server.setValue([9, 9], at: GATTTestDatabase.customWriteHandle)
        h.server.rewriteResponses { request, response in
            // Corrupt the echo of the second piece (offset 18).
            guard request.first == 0x16, request[3] == 18 else { return response }
            var corrupted = response
            corrupted[5] ^= 0xFF
            return corrupted
        }
        let value: [UInt8] = (0..<60).map { UInt8($0) }
        await #expect(throws: StrobeError.gatt(GATTError.preparedWriteMismatch(handle: GATTTestDatabase.customWriteHandle, offset: 18))) {
            try await h.client.writeLong(value, handle: GATTTestDatabase.customWriteHandle)
        }
        #expect(h.server.count(.prepareWriteRequest) == 2)
        #expect(h.channel.sent(.executeWriteRequest) == [[0x18, 0x00]])
        #expect(h.server.value(at: GATTTestDatabase.customWriteHandle) == [9, 9])
        // The prepare queue is free again.
        h.server.rewriteResponses(nil)
        try await h.client.writeLong(value, handle: GATTTestDatabase.customWriteHandle)
        #expect(h.server.value(at: GATTTestDatabase.customWriteHandle) == value)
    }

    @Test func refusedPrepareCancelsTheQueue() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        await #expect(throws: StrobeError.att(ATTError(requestOpcode: .prepareWriteRequest, handle: GATTTestDatabase.customLongHandle, code: .writeNotPermitted))) {
            try await h.client.writeLong(Array(repeating: 1, count: 40), handle: GATTTestDatabase.customLongHandle)
        }
        #expect(h.channel.sent(.executeWriteRequest) == [[0x18, 0x00]])
    }

    @Test func oneLongWriteAtATime() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        h.server.hold()
        let first = Task { try await h.client.writeLong(Array(repeating: 1, count: 40), handle: GATTTestDatabase.customWriteHandle) }
        await h.channel.waitUntilSent(.prepareWriteRequest)
        await #expect(throws: StrobeError.gatt(GATTError.longWriteInProgress)) {
            try await h.client.writeLong([2], handle: GATTTestDatabase.customWriteHandle)
        }
        h.server.releaseHeld()
        try await first.value
        #expect(h.server.value(at: GATTTestDatabase.customWriteHandle) == Array(repeating: 1, count: 40))
    }

    @Test func cancelledLongWriteCancelsTheQueueOnceItsPrepareIsAnswered() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        h.server.hold()
        let write = Task { try await h.client.writeLong(Array(repeating: 1, count: 40), handle: GATTTestDatabase.customWriteHandle) }
        await h.channel.waitUntilSent(.prepareWriteRequest)
        write.cancel()
        await #expect(throws: StrobeError.cancelled) { try await write.value }
        // The prepare is still outstanding: the cancelling Execute Write waits behind it.
        #expect(h.channel.sent(.executeWriteRequest).isEmpty)
        h.server.releaseHeld()
        await h.channel.waitUntilSent(.executeWriteRequest)
        #expect(h.channel.sent(.executeWriteRequest) == [[0x18, 0x00]])
        #expect(await eventually { !h.client.isLongWriteInProgress })
        try await h.client.writeLong([5, 6], handle: GATTTestDatabase.customWriteHandle)
        #expect(h.server.value(at: GATTTestDatabase.customWriteHandle) == [5, 6])
    }

    @Test func writeProcedureFollowsLengthAndResponse() throws {
        #expect(try GATTWriteProcedure.choose(length: 20, mtu: 23, withResponse: true) == .writeRequest)
        #expect(try GATTWriteProcedure.choose(length: 20, mtu: 23, withResponse: false) == .writeWithoutResponse)
        #expect(try GATTWriteProcedure.choose(length: 21, mtu: 23, withResponse: true) == .longWrite)
        #expect(try GATTWriteProcedure.choose(length: 0, mtu: 23, withResponse: true) == .writeRequest)
        #expect(try GATTWriteProcedure.choose(length: 244, mtu: 247, withResponse: false) == .writeWithoutResponse)
        #expect(try GATTWriteProcedure.choose(length: 245, mtu: 247, withResponse: true) == .longWrite)
        #expect(try GATTWriteProcedure.choose(length: 512, mtu: 23, withResponse: true) == .longWrite)
        #expect(throws: GATTError.valueTooLongForWriteCommand(length: 21, limit: 20)) {
            try GATTWriteProcedure.choose(length: 21, mtu: 23, withResponse: false)
        }
        #expect(throws: GATTError.valueTooLong(length: 513, limit: 512)) {
            try GATTWriteProcedure.choose(length: 513, mtu: 517, withResponse: true)
        }
    }

    @Test func splitWriteSendsTheChosenPDUs() async throws {
        let h = ATTTestHarness(build: GATTTestDatabase.build)
        let handle = GATTTestDatabase.customWriteHandle
        #expect(try await h.client.write([1, 2, 3], handle: handle, withResponse: false) == .writeWithoutResponse)
        #expect(try await h.client.write([4, 5, 6], handle: handle, withResponse: true) == .writeRequest)
        let long = [UInt8](repeating: 7, count: 30)
        #expect(try await h.client.write(long, handle: handle, withResponse: true) == .longWrite)
        await #expect(throws: StrobeError.gatt(GATTError.valueTooLongForWriteCommand(length: 30, limit: 20))) {
            try await h.client.write(long, handle: handle, withResponse: false)
        }
        await h.channel.waitUntilSent(.executeWriteRequest)
        #expect(h.channel.sent.map { $0[0] } == [0x52, 0x12, 0x16, 0x16, 0x18])
        #expect(h.server.value(at: handle) == long)
    }
}
