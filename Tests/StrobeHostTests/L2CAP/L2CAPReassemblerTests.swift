import StrobeHCI
import Testing
import StrobeHost

@Suite("L2CAP: ACL header")
struct L2CAPACLHeaderTests {
    @Test func parsesHandleFlagsAndLength() throws {
        let packet = aclPacket(handle: 0x0EFF, boundary: 0b10, broadcast: 0b01, data: [1, 2, 3])
        try packet.withUnsafeBytes { bytes in
            let parsed = try ACLDataPacket(parsing: bytes)
            #expect(parsed.header.connectionHandle == 0x0EFF)
            #expect(parsed.header.boundary == .firstFlushable)
            #expect(parsed.header.broadcast == 0b01)
            #expect(parsed.header.dataTotalLength == 3)
            #expect(Array(parsed.data) == [1, 2, 3])
            #expect(parsed.data.baseAddress == bytes.baseAddress.map { $0 + 4 })
        }
    }

    @Test func headerWritesWhatItParses() {
        for boundary in ACLPacketBoundary.allCases {
            let header = ACLHeader(connectionHandle: 0x0123, boundary: boundary, broadcast: 0, dataTotalLength: 0xBEEF)
            var bytes = [UInt8](repeating: 0, count: 4)
            bytes.withUnsafeMutableBytes { header.write(to: $0.baseAddress!) }
            let parsed = bytes.withUnsafeBytes { ACLHeader($0) }
            #expect(parsed == header)
        }
    }

    @Test func packetShorterThanItsHeaderIsATypedError() {
        for length in 0..<4 {
            let bytes = [UInt8](repeating: 0xFF, count: length)
            #expect(throws: L2CAPError.truncatedACLHeader(length: length)) {
                try bytes.withUnsafeBytes { _ = try ACLDataPacket(parsing: $0) }
            }
        }
    }

    @Test func dataLengthMustMatchTheBytesPresent() {
        let long = aclPacket(handle: 1, boundary: 0b10, data: [1, 2, 3], announcedLength: 0xFFFF)
        #expect(throws: L2CAPError.aclLengthMismatch(connectionHandle: 1, announced: 0xFFFF, present: 3)) {
            try long.withUnsafeBytes { _ = try ACLDataPacket(parsing: $0) }
        }
        let short = aclPacket(handle: 1, boundary: 0b10, data: [1, 2, 3], announcedLength: 1)
        #expect(throws: L2CAPError.aclLengthMismatch(connectionHandle: 1, announced: 1, present: 3)) {
            try short.withUnsafeBytes { _ = try ACLDataPacket(parsing: $0) }
        }
    }

    @Test func channelNames() {
        #expect(L2CAPChannelID.att.rawValue == 0x0004)
        #expect(L2CAPChannelID.leSignaling.rawValue == 0x0005)
        #expect(L2CAPChannelID.smp.rawValue == 0x0006)
        #expect(L2CAPChannelID.att.description == "ATT (0x0004)")
        #expect(L2CAPChannelID(0x0041).description == "CID 0x0041")
        #expect(L2CAPChannelID(0x0041).isDynamicLE)
    }
}

@Suite("L2CAP: reassembler")
struct L2CAPReassemblerTests {
    let handle: ConnectionHandle = 0x0040

    @Test func singleFragmentPDUIsDeliveredInPlace() {
        let reassembler = L2CAPReassembler(connectionHandle: handle)
        let packet = aclPacket(handle: handle, boundary: 0b10, data: l2capPDU(channel: 4, payload: [0x1B, 0x2A, 0x00, 7]))
        var received = L2CAPReceived()
        packet.withUnsafeBytes { bytes in
            reassembler.receive(bytes) { event in
                guard case .pdu(let pdu) = event else { return }
                received.pdus.append(.init(channel: pdu.channel, payload: Array(pdu.payload)))
                // A view into the packet itself: ACL header (4) + basic header (4) in.
                received.addresses.append(pdu.payload.baseAddress)
                #expect(pdu.payload.baseAddress == bytes.baseAddress.map { $0 + 8 })
            }
        }
        #expect(received.pdus == [.init(channel: .att, payload: [0x1B, 0x2A, 0x00, 7])])
        #expect(received.addresses.count == 1)
        #expect(reassembler.counters.pdus == 1)
        #expect(reassembler.counters.errors == 0)
    }

    @Test func firstNonFlushableStartIsAcceptedToo() {
        let reassembler = L2CAPReassembler(connectionHandle: handle)
        let pdu = l2capPDU(channel: 5, payload: l2capPattern(60))
        let got = reassembler.feedAll(aclFragmentsByHand(handle: handle, pdu: pdu, size: 27, start: 0b00))
        #expect(got.pdus == [.init(channel: .leSignaling, payload: l2capPattern(60))])
        #expect(got.errors.isEmpty)
    }

    @Test func emptyPayloadIsAPDU() {
        let reassembler = L2CAPReassembler(connectionHandle: handle)
        let got = reassembler.feedAll([aclPacket(handle: handle, boundary: 0b10, data: l2capPDU(channel: 6, payload: []))])
        #expect(got.pdus == [.init(channel: .smp, payload: [])])
    }

    @Test func oneByteFragmentsIncludingASplitBasicHeader() {
        let reassembler = L2CAPReassembler(connectionHandle: handle)
        for size in [0, 1, 2, 3, 4, 5, 300, 1024] {
            let payload = l2capPattern(size, seed: size)
            let got = reassembler.feedAll(aclFragmentsByHand(handle: handle, pdu: l2capPDU(channel: 4, payload: payload), size: 1))
            #expect(got.errors.isEmpty, "size \(size)")
            #expect(got.pdus == [.init(channel: .att, payload: payload)], "size \(size)")
            #expect(!reassembler.isAssembling)
        }
        #expect(reassembler.counters.errors == 0)
        #expect(reassembler.counters.pdus == 8)
    }

    @Test func multiFragmentPDUComesFromTheConnectionBuffer() {
        let reassembler = L2CAPReassembler(connectionHandle: handle)
        let pdu = l2capPDU(channel: 4, payload: l2capPattern(100))
        let first = reassembler.feedAll(aclFragmentsByHand(handle: handle, pdu: pdu, size: 27))
        let second = reassembler.feedAll(aclFragmentsByHand(handle: handle, pdu: pdu, size: 40))
        #expect(first.pdus == [.init(channel: .att, payload: l2capPattern(100))])
        #expect(second.pdus == first.pdus)
        // Same buffer both times: allocated once, not per PDU.
        #expect(first.addresses == second.addresses)
    }

    /// What a PDU part-way in still owes: known once its length field is whole.
    @Test func bytesOwedFollowTheFragments() {
        let reassembler = L2CAPReassembler(connectionHandle: handle)
        let pdu = l2capPDU(channel: 4, payload: l2capPattern(60))
        #expect(reassembler.bytesOwed == 0)
        _ = reassembler.feedAll([aclPacket(handle: handle, boundary: 0b10, data: Array(pdu[0..<27]))])
        #expect(reassembler.bytesOwed == 64 - 27)
        _ = reassembler.feedAll([aclPacket(handle: handle, boundary: 0b01, data: Array(pdu[27..<54]))])
        #expect(reassembler.bytesOwed == 64 - 54)
        let done = reassembler.feedAll([aclPacket(handle: handle, boundary: 0b01, data: Array(pdu[54...]))])
        #expect(done.pdus == [.init(channel: .att, payload: l2capPattern(60))])
        #expect(reassembler.bytesOwed == 0)
        // Half a length field: the length is not known yet.
        _ = reassembler.feedAll([aclPacket(handle: handle, boundary: 0b10, data: [0x3C])])
        #expect(reassembler.isAssembling)
        #expect(reassembler.bytesOwed == 0)
        _ = reassembler.feedAll([aclPacket(handle: handle, boundary: 0b01, data: [0x00, 0x04, 0x00])])
        #expect(reassembler.bytesOwed == 64 - 4)
    }

    @Test func continuationFirstIsRejectedAndTheNextStartRecovers() {
        let reassembler = L2CAPReassembler(connectionHandle: handle)
        let fragments = aclFragmentsByHand(handle: handle, pdu: l2capPDU(channel: 4, payload: l2capPattern(50)), size: 27)
        // Continuation before its start: dropped. Then the start, which cannot complete without
        // the dropped continuation and is abandoned when the next PDU starts.
        let outOfOrder = reassembler.feedAll([fragments[1], fragments[0]])
        #expect(outOfOrder.errors == [.continuationWithoutStart(connectionHandle: handle, length: fragments[1].count - 4)])
        #expect(outOfOrder.pdus.isEmpty)
        #expect(reassembler.isAssembling)

        let recovered = reassembler.feedAll(fragments)
        #expect(recovered.errors == [.startWhilePending(connectionHandle: handle, received: 27, expected: 54)])
        #expect(recovered.pdus == [.init(channel: .att, payload: l2capPattern(50))])
        #expect(reassembler.counters.abandonedPDUs == 1)
        #expect(reassembler.counters.errors == 2)
    }

    @Test func startWhilePendingDropsTheOldAndDeliversTheNewSingleFragmentPDU() {
        let reassembler = L2CAPReassembler(connectionHandle: handle)
        let partial = aclPacket(handle: handle, boundary: 0b10, data: [0x05])  // half a length field
        let whole = aclPacket(handle: handle, boundary: 0b10, data: l2capPDU(channel: 4, payload: [9, 9]))
        let got = reassembler.feedAll([partial, whole])
        #expect(got.errors == [.startWhilePending(connectionHandle: handle, received: 1, expected: nil)])
        #expect(got.pdus == [.init(channel: .att, payload: [9, 9])])
    }

    @Test func fragmentsExceedingTheAnnouncedLength() {
        let reassembler = L2CAPReassembler(connectionHandle: handle)
        // A single start fragment longer than its basic header says.
        let overlong = aclPacket(handle: handle, boundary: 0b10, data: l2capPDU(channel: 4, payload: l2capPattern(10), announcedLength: 6))
        var got = reassembler.feedAll([overlong])
        #expect(got.errors == [.fragmentExceedsPDU(connectionHandle: handle, announced: 6, received: 10)])
        #expect(!reassembler.isAssembling)

        // A continuation that overruns: the PDU in progress is dropped.
        let pdu = l2capPDU(channel: 4, payload: l2capPattern(30))
        let start = aclPacket(handle: handle, boundary: 0b10, data: Array(pdu[0..<20]))
        let overrun = aclPacket(handle: handle, boundary: 0b01, data: Array(pdu[20...]) + [0xEE])
        got = reassembler.feedAll([start, overrun])
        #expect(got.errors == [.fragmentExceedsPDU(connectionHandle: handle, announced: 30, received: 31)])
        #expect(got.pdus.isEmpty)
        #expect(reassembler.counters.abandonedPDUs == 1)

        // The stray rest is a continuation without a start; the next start works.
        got = reassembler.feedAll([aclPacket(handle: handle, boundary: 0b01, data: [1])]
            + aclFragmentsByHand(handle: handle, pdu: pdu, size: 20))
        #expect(got.errors == [.continuationWithoutStart(connectionHandle: handle, length: 1)])
        #expect(got.pdus == [.init(channel: .att, payload: l2capPattern(30))])
    }

    @Test func hostileLengthIsRejectedItsContinuationsSkippedAndTheNextStartRecovers() {
        let reassembler = L2CAPReassembler(connectionHandle: handle)  // bound 1024
        let hostile = l2capPDU(channel: 4, payload: l2capPattern(100), announcedLength: 0xFFFF)
        let fragments = aclFragmentsByHand(handle: handle, pdu: hostile, size: 27)
        let good = aclFragmentsByHand(handle: handle, pdu: l2capPDU(channel: 4, payload: [1, 2, 3]), size: 27)
        let got = reassembler.feedAll(fragments + good)
        #expect(got.errors == [.pduTooLong(connectionHandle: handle, channel: .att, announced: 0xFFFF, maximum: 1024)])
        #expect(got.pdus == [.init(channel: .att, payload: [1, 2, 3])])
        #expect(reassembler.counters.discardedFragments == fragments.count - 1)
    }

    @Test func hostileLengthSplitAcrossOneByteFragments() {
        let reassembler = L2CAPReassembler(connectionHandle: handle, maximumPayloadLength: 16)
        let hostile = l2capPDU(channel: 4, payload: l2capPattern(17))
        let good = l2capPDU(channel: 4, payload: l2capPattern(16))
        let got = reassembler.feedAll(aclFragmentsByHand(handle: handle, pdu: hostile, size: 1)
            + aclFragmentsByHand(handle: handle, pdu: good, size: 1))
        // The length is known after two 1-byte fragments (the CID not yet); the other 19 bytes are skipped quietly.
        #expect(got.errors == [.pduTooLong(connectionHandle: handle, channel: nil, announced: 17, maximum: 16)])
        #expect(reassembler.counters.discardedFragments == 19)
        #expect(got.pdus == [.init(channel: .att, payload: l2capPattern(16))])
    }

    @Test func largestPDUTheLengthFieldAllowsIsAssembledAtTheMaximumBound() {
        let reassembler = L2CAPReassembler(connectionHandle: handle, maximumPayloadLength: 70_000)
        #expect(reassembler.maximumPayloadLength == 65535)
        let payload = l2capPattern(65535)
        let got = reassembler.feedAll(aclFragmentsByHand(handle: handle, pdu: l2capPDU(channel: 0x40, payload: payload), size: 251))
        #expect(got.errors.isEmpty)
        #expect(got.pdus.count == 1)
        #expect(got.pdus.first?.payload == payload)
    }

    @Test func malformedFramingIsReportedAndAbandonsThePDUInProgress() {
        let reassembler = L2CAPReassembler(connectionHandle: handle)
        let pdu = l2capPDU(channel: 4, payload: l2capPattern(40))
        let start = aclPacket(handle: handle, boundary: 0b10, data: Array(pdu[0..<27]))
        let rest = aclPacket(handle: handle, boundary: 0b01, data: Array(pdu[27...]))
        let packets: [[UInt8]] = [
            start, [0x40, 0x20],  // truncated ACL header
            start, aclPacket(handle: handle, boundary: 0b01, data: [1, 2], announcedLength: 9),
            start, aclPacket(handle: handle, boundary: 0b11, data: [1]),
            start, aclPacket(handle: handle, boundary: 0b01, broadcast: 0b01, data: [1]),
        ]
        let got = reassembler.feedAll(packets)
        #expect(got.errors == [
            .truncatedACLHeader(length: 2),
            .aclLengthMismatch(connectionHandle: handle, announced: 9, present: 2),
            .invalidPacketBoundary(connectionHandle: handle, flag: 0b11),
            .broadcastNotSupported(connectionHandle: handle, flag: 0b01),
        ])
        #expect(reassembler.counters.abandonedPDUs == 4)
        #expect(reassembler.feedAll([start, rest]).pdus == [.init(channel: .att, payload: l2capPattern(40))])
    }

    @Test func packetForAnotherConnectionLeavesThePDUInProgressAlone() {
        let reassembler = L2CAPReassembler(connectionHandle: handle)
        let pdu = l2capPDU(channel: 4, payload: l2capPattern(40))
        let fragments = aclFragmentsByHand(handle: handle, pdu: pdu, size: 27)
        let stray = aclPacket(handle: 0x0041, boundary: 0b10, data: l2capPDU(channel: 4, payload: [1]))
        let got = reassembler.feedAll([fragments[0], stray, fragments[1]])
        #expect(got.errors == [.wrongConnection(expected: handle, received: 0x0041)])
        #expect(got.pdus == [.init(channel: .att, payload: l2capPattern(40))])
    }

    @Test func interleavedConnectionsReassembleIndependently() throws {
        let handles: [ConnectionHandle] = [0x0001, 0x0002, 0x0EFF]
        var reassemblers: [ConnectionHandle: L2CAPReassembler] = [:]
        for handle in handles { reassemblers[handle] = L2CAPReassembler(connectionHandle: handle) }
        let streams = handles.enumerated().map { index, handle in
            // Two PDUs per connection, fragmented differently.
            aclFragmentsByHand(handle: handle, pdu: l2capPDU(channel: 4, payload: l2capPattern(100 + index, seed: index)), size: 27)
                + aclFragmentsByHand(handle: handle, pdu: l2capPDU(channel: 5, payload: l2capPattern(7, seed: index)), size: 5)
        }
        // Round-robin across connections, the way a controller may interleave them.
        var interleaved: [[UInt8]] = []
        for step in 0..<streams.map(\.count).max()! {
            for stream in streams where step < stream.count { interleaved.append(stream[step]) }
        }
        var received: [ConnectionHandle: L2CAPReceived] = [:]
        for packet in interleaved {
            // Route by the parsed header, as the connection manager will.
            let routed = try packet.withUnsafeBytes { try ACLDataPacket(parsing: $0).header.connectionHandle }
            let reassembler = try #require(reassemblers[routed])
            reassembler.feed(packet, into: &received[routed, default: L2CAPReceived()])
        }
        for (index, handle) in handles.enumerated() {
            #expect(received[handle]?.errors == [])
            #expect(received[handle]?.pdus == [
                .init(channel: .att, payload: l2capPattern(100 + index, seed: index)),
                .init(channel: .leSignaling, payload: l2capPattern(7, seed: index)),
            ])
        }
    }

    @Test func randomHostileInputNeverTrapsAndEveryPacketIsAccountedFor() {
        var random = L2CAPTestRandom(seed: 0x5EED)
        let reassembler = L2CAPReassembler(connectionHandle: 0x0001, maximumPayloadLength: 64)
        var received = L2CAPReceived()
        for _ in 0..<20_000 {
            // Mostly plausible headers with hostile lengths and flags, some pure noise.
            let dataLength = Int(random.next() % 40)
            var data = (0..<dataLength).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if dataLength >= 2, random.next() % 2 == 0 {
                let announced = UInt16(truncatingIfNeeded: random.next() % 3 == 0 ? random.next() : random.next() % 80)
                data[0] = UInt8(announced & 0xFF)
                data[1] = UInt8(announced >> 8)
            }
            let handle: ConnectionHandle = random.next() % 8 == 0 ? 0x0002 : 0x0001
            let flags = UInt8(truncatingIfNeeded: random.next() % 16 == 0 ? random.next() : random.next() % 3)
            var packet = aclPacket(handle: handle, boundary: flags & 0b11, broadcast: flags >> 2, data: data,
                                   announcedLength: random.next() % 16 == 0 ? Int(random.next() % 50) : nil)
            if random.next() % 64 == 0 { packet = Array(packet.prefix(Int(random.next() % 4))) }
            reassembler.feed(packet, into: &received)
        }
        let counters = reassembler.counters
        #expect(counters.fragments == 20_000)
        #expect(counters.errors == received.errors.count)
        #expect(counters.pdus == received.pdus.count)
        #expect(received.pdus.allSatisfy { $0.payload.count <= 64 })
        #expect(counters.pdus > 0)
        #expect(counters.errors > 0)
    }
}

/// A small deterministic generator, so the hostile-input test is repeatable.
struct L2CAPTestRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
