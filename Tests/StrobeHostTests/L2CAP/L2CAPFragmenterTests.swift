import StrobeHCI
import Testing
import StrobeHost

/// Fragments a PDU with `fragmenter` into fresh buffers of exactly the capacity it asks for.
private func fragment(_ fragmenter: L2CAPFragmenter, channel: L2CAPChannelID, payload: [UInt8], h4: Bool = false) throws -> [[UInt8]] {
    let count = fragmenter.fragmentCount(payloadLength: payload.count)
    var buffer = [UInt8](repeating: 0, count: fragmenter.packetCapacity(h4Indicator: h4))
    var packets: [[UInt8]] = []
    for index in 0..<count {
        let written = try payload.withUnsafeBytes { source in
            try buffer.withUnsafeMutableBytes { destination in
                try fragmenter.writeFragment(index, channel: channel, payload: source, into: destination, h4Indicator: h4)
            }
        }
        packets.append(Array(buffer[0..<written]))
    }
    return packets
}

@Suite("L2CAP: fragmenter")
struct L2CAPFragmenterTests {
    @Test func roundTripThroughTheReassemblerForManySizesAtACLLengths27And251() throws {
        let sizes = Array(0...600) + [1000, 1020, 1021, 1023, 1024]
        for aclLength in [27, 251] {
            let fragmenter = try L2CAPFragmenter(connectionHandle: 0x0042, maximumFragmentLength: aclLength)
            let reassembler = L2CAPReassembler(connectionHandle: 0x0042)
            for size in sizes {
                let payload = l2capPattern(size, seed: size)
                let packets = try fragment(fragmenter, channel: .att, payload: payload)
                #expect(packets.count == (size + 4 + aclLength - 1) / aclLength)
                for (index, packet) in packets.enumerated() {
                    let header = try packet.withUnsafeBytes { try ACLDataPacket(parsing: $0).header }
                    #expect(header.boundary == (index == 0 ? .firstNonFlushable : .continuing))
                    #expect(Int(header.dataTotalLength) <= aclLength)
                    #expect(index == packets.count - 1 || Int(header.dataTotalLength) == aclLength)
                }
                let got = reassembler.feedAll(packets)
                #expect(got.errors.isEmpty, "size \(size), ACL length \(aclLength)")
                #expect(got.pdus == [.init(channel: .att, payload: payload)], "size \(size), ACL length \(aclLength)")
            }
            #expect(reassembler.counters.errors == 0)
            #expect(reassembler.counters.pdus == sizes.count)
        }
    }

    @Test func oneByteFragmentsSplitTheBasicHeader() throws {
        let fragmenter = try L2CAPFragmenter(connectionHandle: 1, maximumFragmentLength: 1, startBoundary: .firstFlushable)
        let packets = try fragment(fragmenter, channel: .smp, payload: [0xAA, 0xBB])
        #expect(packets == [
            [0x01, 0x20, 1, 0, 0x02],  // length low byte, PB 0b10
            [0x01, 0x10, 1, 0, 0x00],  // length high byte, PB 0b01
            [0x01, 0x10, 1, 0, 0x06],
            [0x01, 0x10, 1, 0, 0x00],
            [0x01, 0x10, 1, 0, 0xAA],
            [0x01, 0x10, 1, 0, 0xBB],
        ])
        let got = L2CAPReassembler(connectionHandle: 1).feedAll(packets)
        #expect(got.pdus == [.init(channel: .smp, payload: [0xAA, 0xBB])])
    }

    @Test func h4IndicatorLeadsEachPacketWhenAsked() throws {
        let fragmenter = try L2CAPFragmenter(connectionHandle: 0x0EFF, maximumFragmentLength: 27)
        let packets = try fragment(fragmenter, channel: .att, payload: l2capPattern(30), h4: true)
        #expect(packets.count == 2)
        #expect(packets.allSatisfy { $0.first == HCIPacketType.acl.rawValue })
        #expect(Array(packets[0].prefix(9)) == [0x02, 0xFF, 0x0E, 27, 0, 30, 0, 4, 0])
        #expect(packets[0].count == 1 + 4 + 27)
        #expect(Array(packets[1].prefix(5)) == [0x02, 0xFF, 0x1E, 7, 0])
    }

    @Test func invalidConfigurationIsATypedError() {
        #expect(throws: L2CAPError.invalidConnectionHandle(0x0F00)) {
            try L2CAPFragmenter(connectionHandle: 0x0F00, maximumFragmentLength: 27)
        }
        #expect(throws: L2CAPError.invalidFragmentLength(0)) {
            try L2CAPFragmenter(connectionHandle: 1, maximumFragmentLength: 0)
        }
        #expect(throws: L2CAPError.invalidFragmentLength(65536)) {
            try L2CAPFragmenter(connectionHandle: 1, maximumFragmentLength: 65536)
        }
        #expect(throws: L2CAPError.invalidPacketBoundary(connectionHandle: 1, flag: 0b01)) {
            try L2CAPFragmenter(connectionHandle: 1, maximumFragmentLength: 27, startBoundary: .continuing)
        }
    }

    @Test func badRequestsAreTypedErrorsNotTraps() throws {
        let fragmenter = try L2CAPFragmenter(connectionHandle: 1, maximumFragmentLength: 27)
        let payload = l2capPattern(30)
        var small = [UInt8](repeating: 0, count: 20)
        #expect(throws: L2CAPError.bufferTooSmall(needed: 31, available: 20)) {
            try payload.withUnsafeBytes { source in
                try small.withUnsafeMutableBytes { try fragmenter.writeFragment(0, channel: .att, payload: source, into: $0) }
            }
        }
        var big = [UInt8](repeating: 0, count: 64)
        #expect(throws: L2CAPError.fragmentIndexOutOfRange(index: 2, count: 2)) {
            try payload.withUnsafeBytes { source in
                try big.withUnsafeMutableBytes { try fragmenter.writeFragment(2, channel: .att, payload: source, into: $0) }
            }
        }
        #expect(throws: L2CAPError.fragmentIndexOutOfRange(index: -1, count: 2)) {
            try payload.withUnsafeBytes { source in
                try big.withUnsafeMutableBytes { try fragmenter.writeFragment(-1, channel: .att, payload: source, into: $0) }
            }
        }
        let huge = [UInt8](repeating: 0, count: 65536)
        #expect(throws: L2CAPError.payloadTooLong(length: 65536, maximum: 65535)) {
            try huge.withUnsafeBytes { source in
                try big.withUnsafeMutableBytes { try fragmenter.writeFragment(0, channel: .att, payload: source, into: $0) }
            }
        }
    }
}
