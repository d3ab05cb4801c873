import Testing
import StrobeHCI

/// Feeds `stream` to a fresh deframer in chunks of the given sizes (the last chunk takes the
/// rest) and returns what it delivered, in order. For packets that lay wholly inside one chunk
/// it also checks that the delivered view points into that chunk: nothing was copied.
private func deframe(
    _ stream: [UInt8], chunkSizes: [Int], limits: H4Deframer.Limits = H4Deframer.Limits()
) throws(TransportError) -> (packets: [Packet], inPlace: Int) {
    var deframer = H4Deframer(limits: limits)
    var packets: [Packet] = []
    var inPlace = 0
    var offset = 0
    var sizes = chunkSizes[...]
    while offset < stream.count {
        let size = min(sizes.popFirst() ?? stream.count, stream.count - offset)
        let result: Result<Void, TransportError> = stream[offset..<offset + size].withUnsafeBytes { chunk in
            do throws(TransportError) {
                try deframer.feed(chunk) { type, payload in
                    packets.append(Packet(type: type, body: Array(payload)))
                    if let base = chunk.baseAddress, let start = payload.baseAddress,
                       start >= base, start + payload.count <= base + chunk.count {
                        inPlace += 1
                    }
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        offset += size
    }
    try deframer.finish()
    return (packets, inPlace)
}

private func stream(_ packets: [Packet]) -> [UInt8] { packets.flatMap(\.h4) }

/// Feeds one chunk, appending what it completes.
private func feed<C: Collection<UInt8>>(
    _ deframer: inout H4Deframer, _ bytes: C, into delivered: inout [Packet]
) throws(TransportError) {
    let result: Result<Void, TransportError> = Array(bytes).withUnsafeBytes { chunk in
        do throws(TransportError) {
            try deframer.feed(chunk) { delivered.append(Packet(type: $0, body: Array($1))) }
            return .success(())
        } catch {
            return .failure(error)
        }
    }
    try result.get()
}

extension Transports {
    @Suite("H4 deframer")
    struct H4DeframerTests {
        @Test func manyPacketsOfEveryTypeInOneChunkAreViewsIntoTheChunk() throws {
            let traffic = sampleTraffic()
            #expect(Set(traffic.map(\.type)) == Set(HCIPacketType.allCases))
            let bytes = stream(traffic)
            let (packets, inPlace) = try deframe(bytes, chunkSizes: [bytes.count])
            #expect(packets == traffic)
            #expect(inPlace == traffic.count)
        }

        @Test func oneByteAtATimeGivesTheSamePackets() throws {
            let traffic = sampleTraffic()
            let bytes = stream(traffic)
            let (packets, inPlace) = try deframe(bytes, chunkSizes: Array(repeating: 1, count: bytes.count))
            #expect(packets == traffic)
            // Only a packet with neither header nor payload beyond its type byte could fit in one byte: none.
            #expect(inPlace == 0)
        }

        @Test func randomSplitPointsGiveTheSamePacketsInOrder() throws {
            let traffic = sampleTraffic()
            let bytes = stream(traffic)
            var generator = SeededGenerator(seed: 0x5354_524F_4245)
            for round in 0..<200 {
                // Small chunks split headers; large ones mix whole packets with straddling ones.
                let largest = round % 2 == 0 ? 8 : 6000
                var sizes: [Int] = []
                var total = 0
                while total < bytes.count {
                    let size = Int.random(in: 1...largest, using: &generator)
                    sizes.append(size)
                    total += size
                }
                let (packets, _) = try deframe(bytes, chunkSizes: sizes)
                #expect(packets == traffic, "round \(round), chunk sizes \(sizes.prefix(20))…")
            }
        }

        @Test func isoLengthIgnoresTheTwoReservedBits() throws {
            let packet = Packet.iso(handle: 0x0001, data: pattern(5, seed: 9), flagBits: 0b10)
            #expect(packet.body[3] & 0xC0 == 0x80)
            let (packets, _) = try deframe(packet.h4, chunkSizes: [packet.h4.count])
            #expect(packets == [packet])
        }

        @Test func unknownTypeNamesTheByteAndItsStreamOffsetAndStaysFailed() {
            let first = Packet.event(code: 0x0E, parameters: [1, 2, 3])
            let good = first.h4 + Packet.acl(handle: 1, data: [9]).h4
            let bytes = good + [0x07, 0x00, 0x00]
            var deframer = H4Deframer()
            var delivered: [Packet] = []
            // The bad byte lies in the second chunk: its offset counts bytes of earlier chunks too.
            let split = first.h4.count + 2
            #expect(throws: Never.self) { try feed(&deframer, bytes[..<split], into: &delivered) }
            #expect(throws: TransportError.unknownPacketType(0x07, offset: UInt64(good.count))) {
                try feed(&deframer, bytes[split...], into: &delivered)
            }
            #expect(delivered == [first, .acl(handle: 1, data: [9])])
            let failure = deframer.failure
            #expect(failure == .unknownPacketType(0x07, offset: UInt64(good.count)))

            // A failed deframer accepts nothing more, even a valid packet.
            #expect(throws: TransportError.unknownPacketType(0x07, offset: UInt64(good.count))) {
                try feed(&deframer, Packet.event(code: 0x0F, parameters: [0, 1, 0, 0]).h4, into: &delivered)
            }
            #expect(delivered.count == 2)
        }

        @Test func zeroAndHighTypeBytesAreUnknown() {
            for byte: UInt8 in [0x00, 0x06, 0xFF] {
                var deframer = H4Deframer()
                var delivered: [Packet] = []
                #expect(throws: TransportError.unknownPacketType(byte, offset: 0)) {
                    try feed(&deframer, [byte], into: &delivered)
                }
                #expect(delivered.isEmpty)
            }
        }

        @Test func oversizedACLIsRejectedFromItsHeaderAlone() {
            // Default limit 4096: a header announcing 4097 fails before any payload arrives,
            // whether the header comes whole or a byte at a time.
            let header: [UInt8] = [0x02, 0x40, 0x00, 0x01, 0x10]
            #expect(throws: TransportError.oversizedPacket(type: .acl, length: 4097, offset: 0)) {
                try deframe(header, chunkSizes: [header.count])
            }
            #expect(throws: TransportError.oversizedPacket(type: .acl, length: 4097, offset: 0)) {
                try deframe(header, chunkSizes: [1, 1, 1, 1, 1])
            }
        }

        /// A one-byte desynchronisation (a byte lost inside an ACL header) is reported where the
        /// misread packet begins, in the stream's own byte count, and says the framing was lost.
        @Test func lostFramingNamesTheByteWhereThePacketBegan() {
            let good = Packet.event(code: 0x0E, parameters: [0x01, 0x03, 0x0C, 0x00]).h4
            var acl = Packet.acl(handle: 0x0040, data: [0x14] + pattern(19, seed: 2)).h4
            acl.remove(at: 1)  // the handle's low byte: the length now reads as 0x1400
            let bytes = good + acl
            for sizes in [[bytes.count], [1], [good.count + 2, 1]] {
                #expect(throws: TransportError.oversizedPacket(type: .acl, length: 0x1400, offset: UInt64(good.count))) {
                    try deframe(bytes, chunkSizes: sizes)
                }
            }
            let error = TransportError.oversizedPacket(type: .acl, length: 0x1400, offset: UInt64(good.count))
            #expect(error.description == "the H4 stream lost its framing at byte 7: an ACL packet announces 5120 bytes, more than the transport accepts")
            #expect(TransportError.unknownPacketType(0x09, offset: 5606).description
                == "the H4 stream lost its framing at byte 5606: 0x09 is no H4 packet type")
        }

        @Test func limitsAreConfigurable() throws {
            let limits = H4Deframer.Limits(maximumACLPayload: 27, maximumISOPayload: 100)
            let fits = Packet.acl(handle: 1, data: pattern(27, seed: 1))
            #expect(try deframe(fits.h4, chunkSizes: [3], limits: limits).packets == [fits])
            #expect(throws: TransportError.oversizedPacket(type: .acl, length: 28, offset: 0)) {
                try deframe(Packet.acl(handle: 1, data: pattern(28, seed: 1)).h4, chunkSizes: [100], limits: limits)
            }
            #expect(throws: TransportError.oversizedPacket(type: .iso, length: 101, offset: 0)) {
                try deframe(Packet.iso(handle: 1, data: pattern(101, seed: 1)).h4, chunkSizes: [2], limits: limits)
            }
            // One-byte lengths are never refused: 255 is their natural bound.
            #expect(limits.maximumPayload(for: .event) == 255)
            #expect(H4Deframer.Limits(maximumACLPayload: 1 << 20, maximumISOPayload: -1)
                == H4Deframer.Limits(maximumACLPayload: 65535, maximumISOPayload: 0))
            #expect(H4Deframer.Limits(maximumISOPayload: 1 << 20).maximumISOPayload == 0x3FFF)
        }

        @Test func largestPacketsAtTheLimitPassThroughTheReassemblyBuffer() throws {
            let limits = H4Deframer.Limits(maximumACLPayload: 65535, maximumISOPayload: 0x3FFF)
            let traffic: [Packet] = [
                .acl(handle: 1, data: pattern(65535, seed: 3)),
                .iso(handle: 2, data: pattern(0x3FFF, seed: 4)),
            ]
            let bytes = stream(traffic)
            #expect(try deframe(bytes, chunkSizes: [1000, 7, 40000], limits: limits).packets == traffic)
        }

        @Test func truncatedPacketStaysPendingUntilItCompletes() throws {
            let packet = Packet.acl(handle: 0x0040, data: pattern(100, seed: 5))
            var deframer = H4Deframer()
            var delivered: [Packet] = []
            try feed(&deframer, packet.h4[..<50], into: &delivered)
            #expect(delivered.isEmpty)
            let (midPacket, pendingType, offset) = (deframer.isMidPacket, deframer.pendingPacketType, deframer.streamOffset)
            #expect(midPacket)
            #expect(pendingType == .acl)
            #expect(offset == 50)
            #expect(throws: TransportError.truncatedPacket(type: .acl, offset: 0)) { try deframer.finish() }

            try feed(&deframer, packet.h4[50...], into: &delivered)
            #expect(delivered == [packet])
            let stillMidPacket = deframer.isMidPacket
            #expect(!stillMidPacket)
            try deframer.finish()
        }

        @Test func truncatedHeaderIsPendingToo() {
            var deframer = H4Deframer()
            var delivered: [Packet] = []
            #expect(throws: Never.self) { try feed(&deframer, [0x04, 0x0E], into: &delivered) }
            #expect(delivered.isEmpty)
            let pendingType = deframer.pendingPacketType
            #expect(pendingType == .event)
            #expect(throws: TransportError.truncatedPacket(type: .event, offset: 0)) { try deframer.finish() }
        }
    }
}
