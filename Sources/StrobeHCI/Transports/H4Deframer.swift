/// Splits an H4 byte stream (Core Specification Vol 4, Part A) into whole HCI packets, one
/// `read()` chunk at a time.
///
/// A packet that lies wholly inside the chunk is delivered as a view into the chunk; nothing is
/// copied. Only a packet that straddles chunks is gathered in a reassembly buffer that is
/// allocated once, at the largest size the limits allow, so no packet allocates.
///
/// Every length is checked against the limits before a byte of payload is awaited. The first
/// malformed byte fails the deframer for good: an H4 stream has no resynchronisation point, so
/// the transport must close.
package struct H4Deframer: ~Copyable {
    /// The largest payload accepted per packet type. Command, SCO and event lengths are one
    /// byte wide and so never exceed 255; ACL and ISO lengths are two bytes wide and need a bound
    /// that matches the controller's buffers.
    package struct Limits: Sendable, Equatable {
        /// Largest ACL data length (the controller's ACL_Data_Packet_Length or LE ACL length).
        package var maximumACLPayload: Int
        /// Largest ISO data load length.
        package var maximumISOPayload: Int

        /// Bounds are clamped to what the length fields can express.
        package init(maximumACLPayload: Int = 4096, maximumISOPayload: Int = 4096) {
            self.maximumACLPayload = min(max(maximumACLPayload, 0), Int(UInt16.max))
            self.maximumISOPayload = min(max(maximumISOPayload, 0), 0x3FFF)
        }

        /// The largest payload for `type`, header excluded.
        package func maximumPayload(for type: HCIPacketType) -> Int {
            switch type {
            case .command, .sco, .event: Int(UInt8.max)
            case .acl: maximumACLPayload
            case .iso: maximumISOPayload
            }
        }

        /// The largest header plus payload of any packet type.
        var largestPacket: Int {
            HCIPacketType.allCases.map { $0.h4HeaderLength + maximumPayload(for: $0) }.max() ?? 0
        }
    }

    package let limits: Limits

    /// Header and payload of the packet being reassembled (the H4 type byte is held apart).
    private let storage: UnsafeMutableRawBufferPointer
    private var pendingType: HCIPacketType?
    /// Bytes of the pending packet gathered so far.
    private var pendingCount = 0
    /// Header length until the header is complete, then header plus payload length.
    private var pendingTotal = 0
    private var pendingHeaderComplete = false
    /// Stream offset of the pending packet's type byte.
    private var pendingStart: UInt64 = 0

    /// Bytes of the stream consumed so far; names where a malformed packet began.
    package private(set) var streamOffset: UInt64 = 0
    /// Set by the first malformed packet; every later `feed` throws it again.
    package private(set) var failure: TransportError?

    package init(limits: Limits = Limits()) {
        self.limits = limits
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(limits.largestPacket, 1), alignment: 8)
    }

    deinit { storage.deallocate() }

    /// True while a packet has begun but not yet completed.
    package var isMidPacket: Bool { pendingType != nil }

    /// The type of the packet being reassembled, if any.
    package var pendingPacketType: HCIPacketType? { pendingType }

    /// The bytes of the stream held for the packet begun and not yet completed (its type byte
    /// and what followed); 0 at a packet boundary.
    package var bytesHeld: Int { pendingType == nil ? 0 : 1 + pendingCount }

    /// Consumes one chunk, calling `deliver` for every packet it completes, in stream order.
    /// The payload passed to `deliver` excludes the type byte and is valid only during the call.
    package mutating func feed(
        _ chunk: UnsafeRawBufferPointer,
        _ deliver: (HCIPacketType, UnsafeRawBufferPointer) -> Void
    ) throws(TransportError) {
        if let failure { throw failure }
        let base = streamOffset
        let count = chunk.count
        var index = 0
        while index < count {
            if let type = pendingType {
                // Continue the packet that straddles chunks.
                let take = min(pendingTotal - pendingCount, count - index)
                UnsafeMutableRawBufferPointer(rebasing: storage[pendingCount..<pendingCount + take])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: chunk[index..<index + take]))
                pendingCount += take
                index += take
                if pendingCount < pendingTotal { continue }
                if !pendingHeaderComplete {
                    let header = UnsafeRawBufferPointer(rebasing: storage[0..<pendingTotal])
                    let length = type.h4PayloadLength(header: header)
                    guard length <= limits.maximumPayload(for: type) else {
                        throw fail(.oversizedPacket(type: type, length: length, offset: pendingStart), consumed: base, index)
                    }
                    pendingHeaderComplete = true
                    pendingTotal += length
                    if pendingCount < pendingTotal { continue }
                }
                deliver(type, UnsafeRawBufferPointer(rebasing: storage[0..<pendingTotal]))
                pendingType = nil
            } else {
                // At a packet boundary. A packet wholly in the chunk (the common case) goes
                // out without touching the pending state; only one that straddles sets it.
                let byte = chunk[index]
                // ACL data, nearly every packet of a busy link: its header read directly, with
                // no switch on the type.
                if byte == HCIPacketType.acl.rawValue, count &- index > 4 {
                    let start = index &+ 1
                    let length = Int(UInt16(littleEndian: chunk.loadUnaligned(fromByteOffset: start &+ 2, as: UInt16.self)))
                    let total = 4 &+ length
                    if length <= limits.maximumACLPayload, count &- start >= total {
                        deliver(.acl, UnsafeRawBufferPointer(rebasing: chunk[start..<start &+ total]))
                        index = start &+ total
                        continue
                    }
                }
                guard let type = HCIPacketType(rawValue: byte) else {
                    throw fail(.unknownPacketType(byte, offset: base + UInt64(index)), consumed: base, index)
                }
                let headerLength = type.h4HeaderLength
                let start = index + 1
                let available = count - start
                var total = headerLength
                if available >= headerLength {
                    let length = type.h4PayloadLength(header: UnsafeRawBufferPointer(rebasing: chunk[start..<start + headerLength]))
                    guard length <= limits.maximumPayload(for: type) else {
                        throw fail(.oversizedPacket(type: type, length: length, offset: base + UInt64(index)), consumed: base, index)
                    }
                    total = headerLength + length
                    if available >= total {
                        deliver(type, UnsafeRawBufferPointer(rebasing: chunk[start..<start + total]))
                        index = start + total
                        continue
                    }
                }
                pendingType = type
                pendingStart = base + UInt64(index)
                pendingCount = 0
                pendingTotal = total
                pendingHeaderComplete = available >= headerLength
                index = start
            }
        }
        streamOffset = base + UInt64(count)
    }

    /// Declares the end of the stream: throws `.truncatedPacket` if a packet was left unfinished.
    package func finish() throws(TransportError) {
        if let failure { throw failure }
        if let pendingType { throw .truncatedPacket(type: pendingType, offset: pendingStart) }
    }

    private mutating func fail(_ error: TransportError, consumed base: UInt64, _ index: Int) -> TransportError {
        failure = error
        pendingType = nil
        streamOffset = base + UInt64(index)
        return error
    }
}

extension HCIPacketType {
    /// Bytes of header that follow the H4 type byte and carry the length.
    var h4HeaderLength: Int {
        switch self {
        case .command: 3  // opcode u16, parameter total length u8
        case .acl: 4  // handle and flags u16, data total length u16
        case .sco: 3  // handle and flags u16, data total length u8
        case .event: 2  // event code u8, parameter total length u8
        case .iso: 4  // handle and flags u16, data load length u14 (+ 2 RFU bits)
        }
    }

    /// The payload length a complete header announces. `header` holds `h4HeaderLength` bytes.
    func h4PayloadLength(header: UnsafeRawBufferPointer) -> Int {
        switch self {
        case .command, .sco: Int(header[2])
        case .event: Int(header[1])
        case .acl: Int(header[2]) | Int(header[3]) << 8
        case .iso: (Int(header[2]) | Int(header[3]) << 8) & 0x3FFF
        }
    }
}
