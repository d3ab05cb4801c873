import StrobeHCI
import StrobeBase
import Synchronization
import Testing
import StrobeHost

@Suite struct ATTBearerTests {
    /// Three readable values at handles 2, 3, 4 after a service declaration.
    private static func threeValues(_ server: TestGATTServer) {
        server.addService(BluetoothUUID(0x180F))
        server.add(BluetoothUUID(0x2A19), value: [1])
        server.add(BluetoothUUID(0x2A19), value: [2])
        server.add(BluetoothUUID(0x2A19), value: [3])
    }

    /// A ring subscribed to the bearer ends when the bearer closes: its consumer gets what was
    /// buffered, then the end, instead of waiting for values that cannot come.
    @Test func aRingEndsWhenItsBearerCloses() async throws {
        let h = ATTTestHarness(build: Self.threeValues)
        let ring = NotificationRing(capacity: 16)
        h.bearer.setValueHandler(ring, forHandle: AttributeHandle(rawValue: 2))
        var iterator = ring.notifications().makeAsyncIterator()
        h.inject([0x1B, 0x02, 0x00, 0xAA])
        h.bearer.close(.disconnected(hciReason: 0x08))
        #expect(ring.isClosed)
        #expect(await iterator.next()?.value == [0xAA])
        #expect(await iterator.next() == nil)
    }

    @Test func requestsRunOneAtATimeInFIFOOrder() async throws {
        let h = ATTTestHarness(build: Self.threeValues)
        h.server.hold()
        let a = Task { try await h.client.read(handle: 2) }
        await h.channel.waitUntilSent(count: 1)
        let b = Task { try await h.client.read(handle: 3) }
        #expect(await eventually { h.bearer.queuedRequestCount == 1 })
        let c = Task { try await h.client.read(handle: 4) }
        #expect(await eventually { h.bearer.queuedRequestCount == 2 })
        #expect(h.channel.sent.count == 1)

        h.server.releaseHeld()
        #expect(try await a.value == [1])
        #expect(try await b.value == [2])
        #expect(try await c.value == [3])
        #expect(h.channel.sent == [[0x0A, 2, 0], [0x0A, 3, 0], [0x0A, 4, 0]])
        #expect(h.bearer.statistics.protocolViolations == 0)
    }

    @Test(arguments: [Duration.seconds(30), .seconds(5)])
    func unansweredRequestTimesOutAndClosesTheBearer(timeout: Duration) async throws {
        let h = ATTTestHarness(timeout: timeout, build: Self.threeValues)
        h.server.drop(.readRequest)
        let first = Task { try await h.client.read(handle: 2) }
        await h.channel.waitUntilSent(count: 1)
        let second = Task { try await h.client.read(handle: 3) }
        #expect(await eventually { h.bearer.queuedRequestCount == 1 })

        await h.clock.waitForSleepers(count: 1)
        h.clock.advance(by: timeout - .milliseconds(1))
        #expect(h.clock.sleeperCount == 1)
        #expect(!h.bearer.isClosed)
        h.clock.advance(by: .milliseconds(1))

        await #expect(throws: StrobeError.bearer(.transactionTimeout(request: .readRequest))) { try await first.value }
        await #expect(throws: StrobeError.bearer(.transactionTimeout(request: .readRequest))) { try await second.value }
        #expect(h.bearer.closeReason == .transactionTimeout(request: .readRequest))
        // No ATT PDU may follow a timeout on this bearer.
        await #expect(throws: StrobeError.bearer(.transactionTimeout(request: .readRequest))) { try await h.client.read(handle: 4) }
        #expect(h.channel.sent.count == 1)
    }

    @Test func answeredRequestStopsItsTimer() async throws {
        let h = ATTTestHarness(timeout: .seconds(1), build: Self.threeValues)
        #expect(try await h.client.read(handle: 2) == [1])
        #expect(await eventually { h.clock.sleeperCount == 0 })
        h.clock.advance(by: .seconds(5))
        #expect(!h.bearer.isClosed)
        #expect(try await h.client.read(handle: 3) == [2])
    }

    @Test func cancellingAnOutstandingRequestLeavesTheTransactionRunning() async throws {
        let h = ATTTestHarness(build: Self.threeValues)
        h.server.hold()
        let a = Task { try await h.client.read(handle: 2) }
        await h.channel.waitUntilSent(count: 1)
        a.cancel()
        await #expect(throws: StrobeError.cancelled) { try await a.value }
        #expect(h.bearer.outstandingRequest == .readRequest)

        // The next request waits for the cancelled one's response.
        let b = Task { try await h.client.read(handle: 3) }
        #expect(await eventually { h.bearer.queuedRequestCount == 1 })
        #expect(h.channel.sent.count == 1)
        h.server.releaseHeld()
        #expect(try await b.value == [2])
        #expect(h.bearer.statistics.abandonedResponses == 1)
        #expect(h.bearer.statistics.protocolViolations == 0)
    }

    @Test func cancelledTransactionStillTimesOut() async throws {
        let h = ATTTestHarness(build: Self.threeValues)
        h.server.drop(.readRequest)
        let a = Task { try await h.client.read(handle: 2) }
        await h.clock.waitForSleepers(count: 1)
        a.cancel()
        await #expect(throws: StrobeError.cancelled) { try await a.value }
        #expect(!h.bearer.isClosed)
        h.clock.advance(by: .seconds(30))
        #expect(await eventually { h.bearer.isClosed })
        #expect(h.bearer.closeReason == .transactionTimeout(request: .readRequest))
    }

    @Test func cancellingAQueuedRequestRemovesItUnsent() async throws {
        let h = ATTTestHarness(build: Self.threeValues)
        h.server.hold()
        let a = Task { try await h.client.read(handle: 2) }
        await h.channel.waitUntilSent(count: 1)
        let b = Task { try await h.client.read(handle: 3) }
        #expect(await eventually { h.bearer.queuedRequestCount == 1 })
        b.cancel()
        await #expect(throws: StrobeError.cancelled) { try await b.value }
        #expect(h.bearer.queuedRequestCount == 0)
        h.server.releaseHeld()
        #expect(try await a.value == [1])
        #expect(try await h.client.read(handle: 4) == [3])
        #expect(h.channel.sent == [[0x0A, 2, 0], [0x0A, 4, 0]])
    }

    @Test func closeFailsEveryWaiterOnce() async throws {
        let h = ATTTestHarness(build: Self.threeValues)
        h.server.hold()
        let outstanding = Task { try await h.client.read(handle: 2) }
        await h.channel.waitUntilSent(count: 1)
        var queued: [Task<[UInt8], any Error>] = []
        for index in 1...3 {
            queued.append(Task { try await h.client.read(handle: AttributeHandle(2 + UInt16(index % 3))) })
            #expect(await eventually { h.bearer.queuedRequestCount == index })
        }
        await h.clock.waitForSleepers(count: 1)

        h.bearer.close(.disconnected(hciReason: 0x13))
        h.bearer.close(.transportClosed(.closed(.closedByPeer)))  // idempotent: the first reason stands
        let expected = StrobeError.bearer(.closed(.disconnected(hciReason: 0x13)))
        await #expect(throws: expected) { try await outstanding.value }
        for task in queued { await #expect(throws: expected) { try await task.value } }
        #expect(h.bearer.closeReason == .disconnected(hciReason: 0x13))
        #expect(await eventually { h.clock.sleeperCount == 0 })

        // A late response is dropped quietly; later calls fail at once.
        h.server.releaseHeld()
        #expect(h.bearer.statistics.protocolViolations == 0)
        await #expect(throws: expected) { try await h.client.read(handle: 2) }
        await #expect(throws: expected) { try await h.client.writeWithoutResponse([1], handle: 2) }
        #expect(h.channel.sent.count == 1)
    }

    @Test func channelFailureReleasesTheSlot() async throws {
        struct LinkDown: Error, Equatable {}
        let h = ATTTestHarness(build: Self.threeValues)
        h.channel.failSends(with: LinkDown())
        let error = await #expect(throws: StrobeError.self) { try await h.client.read(handle: 2) }
        #expect(error?.layer == "other: LinkDown")
        h.channel.failSends(with: nil)
        #expect(try await h.client.read(handle: 2) == [1])
    }

    @Test func clientMTUExchangeTakesTheSmallerMTU() async throws {
        let h = ATTTestHarness(clientMTU: 517, serverMTU: 247)
        #expect(h.bearer.mtu == 23)
        #expect(try await h.bearer.exchangeMTU() == 247)
        #expect(h.channel.sent(.exchangeMTURequest) == [[0x02, 0x05, 0x02]])
        #expect(h.server.mtu == 247)
        // Once per connection.
        #expect(try await h.client.exchangeMTU() == 247)
        #expect(h.server.count(.exchangeMTURequest) == 1)
    }

    @Test func mtuIsClampedToTheChannelAndNeverBelow23() async throws {
        let small = ATTTestHarness(clientMTU: 300, channelPayload: 100)
        #expect(small.bearer.localMTU == 100)
        #expect(try await small.bearer.exchangeMTU() == 100)

        let tiny = ATTTestHarness(clientMTU: 10, serverMTU: 12)
        #expect(tiny.bearer.localMTU == 23)
        #expect(try await tiny.bearer.exchangeMTU() == 23)
    }

    @Test func serverWithoutMTUExchangeLeavesTheDefault() async throws {
        let h = ATTTestHarness()
        h.server.rewriteResponses { request, response in
            request.first == 0x02 ? [0x01, 0x02, 0x00, 0x00, 0x06] : response
        }
        #expect(try await h.bearer.exchangeMTU() == 23)
    }

    @Test func serverInitiatedMTUExchangeIsAnsweredWithOurMTU() async throws {
        let h = ATTTestHarness(clientMTU: 247)
        h.inject([0x02, 0x00, 0x02])  // the peer can receive 512
        await h.channel.waitUntilSent(.exchangeMTUResponse)
        #expect(h.channel.sent(.exchangeMTUResponse) == [[0x03, 0xF7, 0x00]])
        #expect(h.bearer.mtu == 247)

        let low = ATTTestHarness(clientMTU: 247)
        low.inject([0x02, 0x40, 0x00])
        await low.channel.waitUntilSent(.exchangeMTUResponse)
        #expect(low.bearer.mtu == 64)

        // A malformed request gets Invalid PDU and is counted.
        low.inject([0x02, 0x40])
        await low.channel.waitUntilSent(.errorResponse)
        #expect(low.channel.sent(.errorResponse) == [[0x01, 0x02, 0x00, 0x00, 0x04]])
        #expect(low.bearer.statistics.protocolViolations == 1)
        #expect(low.bearer.mtu == 64)
    }

    @Test func indicationIsDeliveredThenConfirmed() async throws {
        let h = ATTTestHarness()
        let confirmationsAtDelivery = Lock<[Int]>([])
        let channel = h.channel
        let handler = RecordingValueHandler()
        h.bearer.setValueHandler(ATTValueClosureHandler { value, handle, kind, time in
            confirmationsAtDelivery.withLock { $0.append(channel.sent(.handleValueConfirmation).count) }
            handler.attributeValueReceived(value, handle: handle, kind: kind, at: time)
        }, forHandle: 0x0010)

        h.server.indicate(0x0010, [1, 2, 3])
        await h.channel.waitUntilSent(.handleValueConfirmation)
        #expect(h.server.confirmations == 1)
        #expect(confirmationsAtDelivery.withLock { $0 } == [0])
        #expect(handler.received == [.init(handle: 0x10, value: [1, 2, 3], kind: .indication, time: HostTime(nanoseconds: 42))])
        #expect(h.bearer.statistics.indicationsReceived == 1)

        // Unrouted indications are confirmed too.
        h.server.indicate(0x0011, [9])
        await h.channel.waitUntilSent(.handleValueConfirmation, count: 2)
        #expect(h.bearer.statistics.unroutedValues == 1)
    }

    @Test func notificationsAreRoutedByHandle() async throws {
        let h = ATTTestHarness()
        let ten = RecordingValueHandler(), other = RecordingValueHandler()
        h.bearer.setValueHandler(ten, forHandle: 0x000A)
        h.inject([0x1B, 0x0A, 0x00, 0xAA, 0xBB], at: HostTime(nanoseconds: 1_000))
        h.inject([0x1B, 0x0B, 0x00, 0xCC])
        h.bearer.setDefaultValueHandler(other)
        h.inject([0x1B, 0x0B, 0x00, 0xDD])
        // Multiple Handle Value Notification: two tuples.
        h.inject([0x23, 0x0A, 0x00, 0x01, 0x00, 0x11, 0x0C, 0x00, 0x02, 0x00, 0x22, 0x33])
        h.bearer.setValueHandler(nil, forHandle: 0x000A)
        h.inject([0x1B, 0x0A, 0x00, 0xEE])

        #expect(ten.received.map(\.value) == [[0xAA, 0xBB], [0x11]])
        #expect(ten.received.first?.time == HostTime(nanoseconds: 1_000))
        #expect(other.received.map(\.handle) == [0x0B, 0x0C, 0x0A])
        #expect(other.received.map(\.value) == [[0xDD], [0x22, 0x33], [0xEE]])
        #expect(h.bearer.statistics.notificationsReceived == 6)
        #expect(h.bearer.statistics.unroutedValues == 1)
        #expect(h.channel.sent.isEmpty)  // notifications are never confirmed

        h.inject([0x1B, 0x0A])
        h.inject([0x23, 0x0A, 0x00, 0x05, 0x00, 0x11])
        #expect(h.bearer.statistics.protocolViolations == 2)
        #expect(h.bearer.statistics.lastProtocolViolation
            == .malformedPDU(.malformed(.multipleHandleValueNotification, reason: "tuple overruns the PDU")))
    }

    @Test func errorResponseBecomesATTError() async throws {
        let h = ATTTestHarness(build: Self.threeValues)
        await #expect(throws: StrobeError.att(ATTError(requestOpcode: .readRequest, handle: 0x0099, code: .invalidHandle))) {
            try await h.client.read(handle: 0x0099)
        }
        h.server.rewriteResponses { _, _ in [0x01, 0x12, 0x03, 0x00, 0x80] }
        do {
            try await h.client.write([1], handle: 3)
            Issue.record("write should fail")
        } catch {
            guard case .att(let error) = error else { throw error }
            #expect(error.requestOpcode == .writeRequest)
            #expect(error.handle == 3)
            #expect(error.code.isApplicationError)
        }
        #expect(!h.bearer.isClosed)
    }

    @Test func unexpectedResponsesAreCountedNotFatal() async throws {
        let h = ATTTestHarness(build: Self.threeValues)
        h.inject([0x0B, 0x01, 0x02])
        #expect(h.bearer.statistics.lastProtocolViolation == .unexpectedResponse(.readResponse))

        h.server.hold()
        let read = Task { try await h.client.read(handle: 2) }
        await h.channel.waitUntilSent(count: 1)
        h.inject([0x13])
        #expect(h.bearer.statistics.lastProtocolViolation == .mismatchedResponse(request: .readRequest, response: .writeResponse))
        h.inject([0x01, 0x12, 0x02, 0x00, 0x03])
        #expect(h.bearer.statistics.lastProtocolViolation == .mismatchedErrorResponse(request: .readRequest, reportedRequest: .writeRequest))
        h.inject([0x01, 0x0A, 0x02])  // a truncated Error Response cannot end the transaction
        #expect(h.bearer.statistics.lastProtocolViolation == .malformedPDU(.truncated(.errorResponse, needed: 4, got: 3)))
        h.inject([0x1E])
        #expect(h.bearer.statistics.lastProtocolViolation == .unexpectedConfirmation)
        h.inject([])
        #expect(h.bearer.statistics.lastProtocolViolation == .malformedPDU(.empty))
        #expect(h.bearer.statistics.protocolViolations == 6)

        h.server.releaseHeld()
        #expect(try await read.value == [1])
        #expect(!h.bearer.isClosed)
    }

    @Test func malformedResponseEndsTheRequestWithATypedError() async throws {
        let h = ATTTestHarness(build: Self.threeValues)
        // A Read By Type Response whose length byte promises 5-byte entries but carries 3.
        h.server.rewriteResponses { _, _ in [0x09, 0x05, 0x02, 0x00, 0xAA] }
        await #expect(throws: ATTBearerError.malformedResponse(.truncated(.readByTypeResponse, needed: 7, got: 5))) {
            try await h.client.read(uuid: BluetoothUUID(0x2A19))
        }
        h.server.rewriteResponses { _, _ in [0x09, 0x04, 0x02, 0x00, 0xAA, 0xBB, 0x03, 0x00, 0xCC] }
        await #expect(throws: ATTBearerError.malformedResponse(
            .malformed(.readByTypeResponse, reason: "7 bytes of data is not a multiple of entry length 4"))) {
            try await h.client.read(uuid: BluetoothUUID(0x2A19))
        }
        #expect(h.bearer.statistics.protocolViolations == 2)
        h.server.rewriteResponses(nil)
        #expect(try await h.client.read(uuid: BluetoothUUID(0x2A19)).map(\.value) == [[1], [2], [3]])
    }

    @Test func requestsWeDoNotServeAreRefused() async throws {
        let h = ATTTestHarness()
        h.inject([0x0A, 0x03, 0x00])  // the peer reads from us
        h.inject([0x7F, 0x01])  // an unknown command: ignored
        h.inject([0x3F])  // an unknown request
        await h.channel.waitUntilSent(.errorResponse, count: 2)
        #expect(h.channel.sent(.errorResponse) == [[0x01, 0x0A, 0x00, 0x00, 0x06], [0x01, 0x3F, 0x00, 0x00, 0x06]])
        #expect(h.bearer.statistics.unsupportedRequests == 2)
        #expect(h.bearer.statistics.ignoredCommands == 1)
    }

    @Test func pdusLongerThanTheMTUAreNotSent() async throws {
        let h = ATTTestHarness(build: Self.threeValues)
        let tooLong = [UInt8](repeating: 7, count: 21)
        await #expect(throws: StrobeError.bearer(ATTBearerError.pduTooLong(.writeRequest, length: 24, mtu: 23))) {
            try await h.client.write(tooLong, handle: 2)
        }
        await #expect(throws: ATTBearerError.pduTooLong(.writeCommand, length: 24, mtu: 23)) {
            try await h.bearer.send(ATTWriteCommand(handle: 2, value: tooLong))
        }
        #expect(h.channel.sent.isEmpty)
        #expect(try await h.client.read(handle: 2) == [1])
    }
}
