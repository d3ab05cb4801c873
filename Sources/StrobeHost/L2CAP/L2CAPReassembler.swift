import StrobeHCI

/// What one ACL packet produced. A start fragment that abandons an unfinished PDU yields the
/// error first and may then yield its own PDU.
public enum L2CAPReassemblyEvent {
    case pdu(L2CAPPDU)
    case error(L2CAPError)
}

/// What a reassembler has seen, for diagnostics.
public struct L2CAPReassemblyCounters: Sendable, Hashable {
    /// ACL packets handed in.
    public var fragments = 0
    /// Complete PDUs delivered.
    public var pdus = 0
    /// Errors reported (each one also delivered as an event).
    public var errors = 0
    /// PDUs in progress that were dropped: by an error, a new start, or `reset()`.
    public var abandonedPDUs = 0
    /// Continuations of a PDU that was too long, skipped quietly after its one error.
    public var discardedFragments = 0

    public init() {}
}

/// Reassembles the L2CAP basic-mode PDUs of one LE-U connection from its ACL fragments
/// (Core Vol 3, Part A, 7.2; Vol 4, Part E, 5.4.2).
///
/// A start fragment (PB 0b10 from a controller; 0b00 is accepted too) begins a PDU with the basic
/// header's length and CID; continuing fragments (0b01) append. A PDU that arrives whole in one
/// fragment is delivered as a view into that packet, without a copy; one that spans fragments
/// is gathered in a buffer allocated once, at `init`, to hold the longest PDU accepted. The basic
/// header itself may be split across fragments.
///
/// Every length is checked. Whatever is malformed becomes an `L2CAPError` event and a count;
/// the fragment (and the PDU in progress, when it cannot be trusted any more) is dropped, and
/// reassembly starts again at the next start fragment. Nothing traps.
///
/// Owned by the thread that reads the transport; not `Sendable`.
public final class L2CAPReassembler {
    /// Payload bound when none is given: room for the largest ATT MTU (517) with margin.
    public static let defaultMaximumPayloadLength = 1024
    /// The most the 16-bit length of the basic header can announce.
    public static let maximumPayloadLengthLimit = Int(UInt16.max)

    public let connectionHandle: ConnectionHandle
    /// Longest information payload accepted; longer PDUs are reported as `.pduTooLong`.
    public let maximumPayloadLength: Int
    public private(set) var counters = L2CAPReassemblyCounters()

    private enum State {
        case idle
        /// `received` PDU bytes (header included) are in `buffer`; `expected` is the PDU's total
        /// length once the 2-byte length field has arrived.
        case assembling(received: Int, expected: Int?)
        /// Skipping the rest of a PDU that was too long: `received` of `expected` bytes went by.
        case discarding(received: Int, expected: Int)
    }

    private var state = State.idle
    private let buffer: UnsafeMutableRawBufferPointer

    /// `maximumPayloadLength` is clamped to `0...maximumPayloadLengthLimit`.
    public init(connectionHandle: ConnectionHandle, maximumPayloadLength: Int = defaultMaximumPayloadLength) {
        self.connectionHandle = connectionHandle
        self.maximumPayloadLength = min(max(maximumPayloadLength, 0), Self.maximumPayloadLengthLimit)
        buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: L2CAPBasicHeader.length + self.maximumPayloadLength, alignment: 8)
    }

    deinit { buffer.deallocate() }

    /// Whether part of a PDU has arrived and the rest is awaited.
    public var isAssembling: Bool {
        if case .assembling = state { return true }
        return false
    }

    /// Drops any PDU in progress (for instance when the connection goes away).
    public func reset() {
        if case .assembling = state { counters.abandonedPDUs += 1 }
        state = .idle
    }

    /// Takes one HCI ACL packet (the H4 payload: ACL header, then data) and reports what it
    /// completed or what was wrong with it. A delivered PDU's view is valid only during the call
    /// to `onEvent`, which must not call back into this reassembler.
    public func receive(_ aclPacket: UnsafeRawBufferPointer, _ onEvent: (L2CAPReassemblyEvent) -> Void) {
        let packet: ACLDataPacket
        do throws(L2CAPError) {
            packet = try ACLDataPacket(parsing: aclPacket)
        } catch {
            counters.fragments += 1
            abandon()
            report(error, onEvent)
            return
        }
        receive(packet, onEvent)
    }

    /// Takes an ACL packet whose header was already parsed (by whoever routed it here).
    public func receive(_ packet: ACLDataPacket, _ onEvent: (L2CAPReassemblyEvent) -> Void) {
        counters.fragments += 1
        let header = packet.header
        guard header.connectionHandle == connectionHandle else {
            // Not ours: leave this connection's PDU in progress alone.
            report(.wrongConnection(expected: connectionHandle, received: header.connectionHandle), onEvent)
            return
        }
        guard header.broadcast == 0 else {
            abandon()
            report(.broadcastNotSupported(connectionHandle: connectionHandle, flag: header.broadcast), onEvent)
            return
        }
        switch header.boundary {
        case .firstFlushable, .firstNonFlushable:
            start(packet.data, onEvent)
        case .continuing:
            continuation(packet.data, onEvent)
        default:
            // Complete (automatically flushable) PDUs are BR/EDR only: not valid on an LE-U link.
            abandon()
            report(.invalidPacketBoundary(connectionHandle: connectionHandle, flag: header.boundary.rawValue), onEvent)
        }
    }

    // MARK: Fragments

    private func start(_ data: UnsafeRawBufferPointer, _ onEvent: (L2CAPReassemblyEvent) -> Void) {
        if case .assembling(let received, let expected) = state {
            counters.abandonedPDUs += 1
            report(.startWhilePending(connectionHandle: connectionHandle, received: received, expected: expected), onEvent)
        }
        state = .idle  // a PDU being discarded ends here too

        if data.count >= 2 {
            let payloadLength = Int(UInt16(littleEndian: data.loadUnaligned(as: UInt16.self)))
            let expected = L2CAPBasicHeader.length + payloadLength
            guard payloadLength <= maximumPayloadLength else {
                tooLong(payloadLength: payloadLength, received: data.count, onEvent)
                return
            }
            if data.count == expected, let header = L2CAPBasicHeader(data) {
                // The common case: the whole PDU in one fragment, delivered in place.
                deliver(header.channel, UnsafeRawBufferPointer(rebasing: data[L2CAPBasicHeader.length..<expected]), onEvent)
                return
            }
            guard data.count < expected else {
                report(.fragmentExceedsPDU(
                    connectionHandle: connectionHandle, announced: payloadLength,
                    received: data.count - L2CAPBasicHeader.length), onEvent)
                return
            }
            append(data, at: 0)
            state = .assembling(received: data.count, expected: expected)
        } else {
            // Not even the length field yet: keep the byte and wait.
            append(data, at: 0)
            state = .assembling(received: data.count, expected: nil)
        }
    }

    private func continuation(_ data: UnsafeRawBufferPointer, _ onEvent: (L2CAPReassemblyEvent) -> Void) {
        switch state {
        case .idle:
            report(.continuationWithoutStart(connectionHandle: connectionHandle, length: data.count), onEvent)

        case .discarding(let received, let expected):
            let total = received + data.count
            if total < expected {
                counters.discardedFragments += 1
                state = .discarding(received: total, expected: expected)
            } else if total == expected {
                counters.discardedFragments += 1
                state = .idle
            } else {
                state = .idle
                report(.fragmentExceedsPDU(
                    connectionHandle: connectionHandle, announced: expected - L2CAPBasicHeader.length,
                    received: total - L2CAPBasicHeader.length), onEvent)
            }

        case .assembling(var received, let knownExpected):
            var rest = data
            let expected: Int
            if let knownExpected {
                expected = knownExpected
            } else {
                // The length field was split: complete it first.
                let take = min(2 - received, rest.count)
                append(UnsafeRawBufferPointer(rebasing: rest[0..<take]), at: received)
                received += take
                rest = UnsafeRawBufferPointer(rebasing: rest[take...])
                guard received >= 2 else {
                    state = .assembling(received: received, expected: nil)
                    return
                }
                let payloadLength = Int(UInt16(littleEndian: buffer.loadUnaligned(as: UInt16.self)))
                guard payloadLength <= maximumPayloadLength else {
                    state = .idle
                    tooLong(payloadLength: payloadLength, received: received + rest.count, onEvent)
                    return
                }
                expected = L2CAPBasicHeader.length + payloadLength
            }
            guard received + rest.count <= expected else {
                counters.abandonedPDUs += 1
                state = .idle
                report(.fragmentExceedsPDU(
                    connectionHandle: connectionHandle, announced: expected - L2CAPBasicHeader.length,
                    received: received + rest.count - L2CAPBasicHeader.length), onEvent)
                return
            }
            append(rest, at: received)
            received += rest.count
            guard received == expected else {
                state = .assembling(received: received, expected: expected)
                return
            }
            state = .idle
            let view = UnsafeRawBufferPointer(buffer)
            if let header = L2CAPBasicHeader(view) {  // expected >= 4, so always present
                deliver(header.channel, UnsafeRawBufferPointer(rebasing: view[L2CAPBasicHeader.length..<expected]), onEvent)
            }
        }
    }

    // MARK: Helpers

    /// Reports a PDU whose announced length is over the bound and skips the rest of it.
    private func tooLong(payloadLength: Int, received: Int, _ onEvent: (L2CAPReassemblyEvent) -> Void) {
        let expected = L2CAPBasicHeader.length + payloadLength
        if received < expected { state = .discarding(received: received, expected: expected) }
        report(.pduTooLong(connectionHandle: connectionHandle, announced: payloadLength, maximum: maximumPayloadLength), onEvent)
    }

    /// Copies into the buffer. Callers have checked that `offset + bytes.count` fits: a PDU being
    /// assembled never exceeds `expected`, which is at most the buffer's size.
    private func append(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        guard let source = bytes.baseAddress, bytes.count > 0, let destination = buffer.baseAddress,
              offset >= 0, offset + bytes.count <= buffer.count
        else { return }
        (destination + offset).copyMemory(from: source, byteCount: bytes.count)
    }

    private func abandon() {
        if case .assembling = state { counters.abandonedPDUs += 1 }
        state = .idle
    }

    private func deliver(_ channel: L2CAPChannelID, _ payload: UnsafeRawBufferPointer, _ onEvent: (L2CAPReassemblyEvent) -> Void) {
        counters.pdus += 1
        onEvent(.pdu(L2CAPPDU(channel: channel, payload: payload)))
    }

    private func report(_ error: L2CAPError, _ onEvent: (L2CAPReassemblyEvent) -> Void) {
        counters.errors += 1
        onEvent(.error(error))
    }
}
