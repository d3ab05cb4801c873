import StrobeHCI

/// What one ACL packet produced. A start fragment that abandons an unfinished PDU yields the
/// error first and may then yield its own PDU.
package enum L2CAPReassemblyEvent {
    case pdu(L2CAPPDU)
    case error(L2CAPError)
}

/// What one ACL packet produced, as a small value: a PDU or none (a fragment that only added to
/// a PDU in progress), and how many errors it raised (0, 1 or 2: a start fragment can end the PDU
/// in progress and be malformed itself), kept by the reassembly for the rare reader
/// (`L2CAPReassembly.errors(of:)`). The PDU's view is borrowed from the packet or the reassembly
/// buffer, valid until the next packet.
package struct L2CAPReassemblyOutcome {
    package var pdu: L2CAPPDU?
    package var errorCount: UInt8

    @inlinable
    package init(pdu: L2CAPPDU? = nil, errorCount: UInt8 = 0) {
        self.pdu = pdu
        self.errorCount = errorCount
    }
}

/// What a reassembler has seen, for diagnostics.
package struct L2CAPReassemblyCounters: Sendable, Hashable {
    /// ACL packets handed in.
    package var fragments = 0
    /// Complete PDUs delivered.
    package var pdus = 0
    /// Errors reported (each one also delivered as an event).
    package var errors = 0
    /// PDUs in progress that were dropped: by an error, a new start, or `reset()`.
    package var abandonedPDUs = 0
    /// Continuations of a PDU that was too long, skipped quietly after its one error.
    package var discardedFragments = 0

    package init() {}
}

/// Reassembles the L2CAP basic-mode PDUs of one LE-U connection from its ACL fragments
/// (Core Vol 3, Part A, 7.2; Vol 4, Part E, 5.4.2).
///
/// A start fragment (PB 0b10 from a controller; 0b00 is accepted too) begins a PDU with the basic
/// header's length and CID; continuing fragments (0b01) append. A PDU that arrives whole in one
/// fragment is delivered as a view into that packet, without a copy; one that spans fragments
/// is gathered in a buffer, given once, that holds the longest PDU accepted. The basic header
/// itself may be split across fragments.
///
/// Every length is checked. Whatever is malformed becomes an `L2CAPError` and a count; the
/// fragment (and the PDU in progress, when it cannot be trusted any more) is dropped, and
/// reassembly starts again at the next start fragment. Nothing traps.
///
/// A value with no I/O that returns what each packet produced: the link keeps it in memory its
/// reader thread alone touches, so the receive path takes no lock and no reference count.
/// `L2CAPReassembler` wraps it as an object.
package struct L2CAPReassembly {
    // Declared in the order the receive path touches them on every fragment (buffer, state,
    // handle, fragment count), so that they share the first cache line (`L2CAPLink` allocates
    // this on a line of its own): with many links interleaved, each link's state is cold.
    /// Where a PDU that spans fragments is gathered, owned by whoever owns this value.
    private let buffer: UnsafeMutableRawBufferPointer

    private enum State {
        case idle
        /// `received` PDU bytes (header included) are in `buffer`; `expected` is the PDU's total
        /// length once the 2-byte length field has arrived.
        case assembling(received: Int, expected: Int?)
        /// Skipping the rest of a PDU that was too long: `received` of `expected` bytes went by.
        case discarding(received: Int, expected: Int)
    }

    private var state = State.idle
    package let connectionHandle: ConnectionHandle
    package private(set) var counters = L2CAPReassemblyCounters()
    /// Longest information payload accepted; longer PDUs are reported as `.pduTooLong`.
    package let maximumPayloadLength: Int
    /// The errors of the latest packet, in order (`errorCount` of its outcome say how many).
    private var recentErrors: (L2CAPError?, L2CAPError?) = (nil, nil)

    /// `buffer` bounds the PDU: `maximumPayloadLength` is clamped to what it holds after the
    /// basic header.
    package init(connectionHandle: ConnectionHandle, maximumPayloadLength: Int, buffer: UnsafeMutableRawBufferPointer) {
        self.connectionHandle = connectionHandle
        self.maximumPayloadLength = min(max(maximumPayloadLength, 0), max(buffer.count - L2CAPBasicHeader.length, 0))
        self.buffer = buffer
    }

    /// Whether part of a PDU has arrived and the rest is awaited.
    package var isAssembling: Bool {
        if case .assembling = state { return true }
        return false
    }

    /// The bytes still to come of the PDU being assembled: 0 when none is, or while its length
    /// field is incomplete.
    package var bytesOwed: Int {
        if case .assembling(let received, let expected?) = state { return expected - received }
        return 0
    }

    /// Drops any PDU in progress (for instance when the connection goes away).
    package mutating func reset() {
        if case .assembling = state { counters.abandonedPDUs += 1 }
        state = .idle
    }

    /// The errors `outcome` counted, oldest first; valid until the next packet.
    package func errors(of outcome: L2CAPReassemblyOutcome) -> [L2CAPError] {
        [recentErrors.0, recentErrors.1].prefix(Int(outcome.errorCount)).compactMap { $0 }
    }

    /// `receive`, with each event handed to `onEvent` in order: errors, then the PDU.
    package mutating func receive(_ packet: ACLDataPacket, _ onEvent: (L2CAPReassemblyEvent) -> Void) {
        let outcome = receive(packet)
        for error in errors(of: outcome) { onEvent(.error(error)) }
        if let pdu = outcome.pdu { onEvent(.pdu(pdu)) }
    }

    /// Takes one HCI ACL packet (the H4 payload: ACL header, then data), events to `onEvent`.
    package mutating func receive(_ aclPacket: UnsafeRawBufferPointer, _ onEvent: (L2CAPReassemblyEvent) -> Void) {
        let outcome = receive(aclPacket)
        for error in errors(of: outcome) { onEvent(.error(error)) }
        if let pdu = outcome.pdu { onEvent(.pdu(pdu)) }
    }

    /// Takes one HCI ACL packet (the H4 payload: ACL header, then data).
    package mutating func receive(_ aclPacket: UnsafeRawBufferPointer) -> L2CAPReassemblyOutcome {
        let packet: ACLDataPacket
        do throws(L2CAPError) {
            packet = try ACLDataPacket(parsing: aclPacket)
        } catch {
            counters.fragments += 1
            abandon()
            return report(error)
        }
        return receive(packet)
    }

    /// Takes an ACL packet whose header was already parsed (by whoever routed it here).
    @inline(__always)
    package mutating func receive(_ packet: ACLDataPacket) -> L2CAPReassemblyOutcome {
        counters.fragments += 1
        let header = packet.header
        guard header.connectionHandle == connectionHandle else {
            // Not ours: leave this connection's PDU in progress alone.
            return report(.wrongConnection(expected: connectionHandle, received: header.connectionHandle))
        }
        guard header.broadcast == 0 else {
            abandon()
            return report(.broadcastNotSupported(connectionHandle: connectionHandle, flag: header.broadcast))
        }
        switch header.boundary.rawValue {
        case 0b10, 0b00:
            return start(packet.data)
        case 0b01:
            return continuation(packet.data)
        default:
            // Complete (automatically flushable) PDUs are BR/EDR only: not valid on an LE-U link.
            abandon()
            return report(.invalidPacketBoundary(connectionHandle: connectionHandle, flag: header.boundary.rawValue))
        }
    }

    // MARK: Fragments

    private mutating func start(_ data: UnsafeRawBufferPointer) -> L2CAPReassemblyOutcome {
        var outcome = L2CAPReassemblyOutcome()
        if case .assembling(let received, let expected) = state {
            counters.abandonedPDUs += 1
            outcome = report(.startWhilePending(connectionHandle: connectionHandle, received: received, expected: expected), after: outcome)
        }
        state = .idle  // a PDU being discarded ends here too
        return begin(data, after: outcome)
    }

    /// A start fragment with nothing in progress; `earlier` is what the packet raised before.
    private mutating func begin(_ data: UnsafeRawBufferPointer, after earlier: L2CAPReassemblyOutcome) -> L2CAPReassemblyOutcome {
        if data.count >= 2 {
            let payloadLength = Int(UInt16(littleEndian: data.loadUnaligned(as: UInt16.self)))
            let expected = L2CAPBasicHeader.length + payloadLength
            guard payloadLength <= maximumPayloadLength else {
                return tooLong(payloadLength: payloadLength, channel: L2CAPBasicHeader(data)?.channel, received: data.count, after: earlier)
            }
            if data.count == expected, let header = L2CAPBasicHeader(data) {
                // The common case: the whole PDU in one fragment, delivered in place.
                return deliver(header.channel, UnsafeRawBufferPointer(rebasing: data[L2CAPBasicHeader.length..<expected]), after: earlier)
            }
            guard data.count < expected else {
                return report(.fragmentExceedsPDU(
                    connectionHandle: connectionHandle, announced: payloadLength,
                    received: data.count - L2CAPBasicHeader.length), after: earlier)
            }
            append(data, at: 0)
            state = .assembling(received: data.count, expected: expected)
        } else {
            // Not even the length field yet: keep the byte and wait.
            append(data, at: 0)
            state = .assembling(received: data.count, expected: nil)
        }
        return earlier
    }

    private mutating func continuation(_ data: UnsafeRawBufferPointer) -> L2CAPReassemblyOutcome {
        switch state {
        case .idle:
            return report(.continuationWithoutStart(connectionHandle: connectionHandle, length: data.count))

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
                return report(.fragmentExceedsPDU(
                    connectionHandle: connectionHandle, announced: expected - L2CAPBasicHeader.length,
                    received: total - L2CAPBasicHeader.length))
            }
            return L2CAPReassemblyOutcome()

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
                    return L2CAPReassemblyOutcome()
                }
                let payloadLength = Int(UInt16(littleEndian: buffer.loadUnaligned(as: UInt16.self)))
                guard payloadLength <= maximumPayloadLength else {
                    state = .idle
                    // The CID follows the length just completed, when this fragment carries it.
                    let channel = rest.count >= 2 ? L2CAPChannelID(UInt16(rest[0]) | UInt16(rest[1]) << 8) : nil
                    return tooLong(payloadLength: payloadLength, channel: channel, received: received + rest.count)
                }
                expected = L2CAPBasicHeader.length + payloadLength
            }
            guard received + rest.count <= expected else {
                counters.abandonedPDUs += 1
                state = .idle
                return report(.fragmentExceedsPDU(
                    connectionHandle: connectionHandle, announced: expected - L2CAPBasicHeader.length,
                    received: received + rest.count - L2CAPBasicHeader.length))
            }
            append(rest, at: received)
            received += rest.count
            guard received == expected else {
                state = .assembling(received: received, expected: expected)
                return L2CAPReassemblyOutcome()
            }
            state = .idle
            let view = UnsafeRawBufferPointer(buffer)
            guard let header = L2CAPBasicHeader(view) else { return L2CAPReassemblyOutcome() }  // expected >= 4: always there
            return deliver(header.channel, UnsafeRawBufferPointer(rebasing: view[L2CAPBasicHeader.length..<expected]))
        }
    }

    // MARK: Helpers

    /// Reports a PDU whose announced length is over the bound and skips the rest of it.
    private mutating func tooLong(
        payloadLength: Int, channel: L2CAPChannelID?, received: Int, after earlier: L2CAPReassemblyOutcome = L2CAPReassemblyOutcome()
    ) -> L2CAPReassemblyOutcome {
        let expected = L2CAPBasicHeader.length + payloadLength
        if received < expected { state = .discarding(received: received, expected: expected) }
        return report(.pduTooLong(connectionHandle: connectionHandle, channel: channel, announced: payloadLength, maximum: maximumPayloadLength),
                      after: earlier)
    }

    /// Copies into the buffer. Callers have checked that `offset + bytes.count` fits: a PDU being
    /// assembled never exceeds `expected`, which is at most the buffer's size.
    private func append(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        guard let source = bytes.baseAddress, bytes.count > 0, let destination = buffer.baseAddress,
              offset >= 0, offset + bytes.count <= buffer.count
        else { return }
        (destination + offset).copyMemory(from: source, byteCount: bytes.count)
    }

    private mutating func abandon() {
        if case .assembling = state { counters.abandonedPDUs += 1 }
        state = .idle
    }

    private mutating func deliver(_ channel: L2CAPChannelID, _ payload: UnsafeRawBufferPointer,
                                  after earlier: L2CAPReassemblyOutcome = L2CAPReassemblyOutcome()) -> L2CAPReassemblyOutcome {
        counters.pdus += 1
        return L2CAPReassemblyOutcome(pdu: L2CAPPDU(channel: channel, payload: payload), errorCount: earlier.errorCount)
    }

    /// Keeps `error` as the packet's next one (at most two per packet).
    private mutating func report(_ error: L2CAPError, after earlier: L2CAPReassemblyOutcome = L2CAPReassemblyOutcome()) -> L2CAPReassemblyOutcome {
        counters.errors += 1
        if earlier.errorCount == 0 { recentErrors = (error, nil) } else { recentErrors.1 = error }
        return L2CAPReassemblyOutcome(pdu: earlier.pdu, errorCount: min(earlier.errorCount + 1, 2))
    }
}

/// `L2CAPReassembly` with its buffer, for owners that keep it as an object (captures, tests),
/// reporting through a closure. Owned by one thread at a time; not `Sendable`.
package final class L2CAPReassembler {
    /// Payload bound when none is given: room for the largest ATT MTU (517) with margin.
    package static let defaultMaximumPayloadLength = 1024
    /// The most the 16-bit length of the basic header can announce.
    package static let maximumPayloadLengthLimit = Int(UInt16.max)

    private let buffer: UnsafeMutableRawBufferPointer
    private let reassembly: UnsafeMutablePointer<L2CAPReassembly>

    /// `maximumPayloadLength` is clamped to `0...maximumPayloadLengthLimit`.
    package init(connectionHandle: ConnectionHandle, maximumPayloadLength: Int = defaultMaximumPayloadLength) {
        let maximum = min(max(maximumPayloadLength, 0), Self.maximumPayloadLengthLimit)
        buffer = .allocate(byteCount: L2CAPBasicHeader.length + maximum, alignment: 8)
        reassembly = .allocate(capacity: 1)
        reassembly.initialize(to: L2CAPReassembly(connectionHandle: connectionHandle, maximumPayloadLength: maximum, buffer: buffer))
    }

    deinit {
        reassembly.deinitialize(count: 1)
        reassembly.deallocate()
        buffer.deallocate()
    }

    package var connectionHandle: ConnectionHandle { reassembly.pointee.connectionHandle }
    package var maximumPayloadLength: Int { reassembly.pointee.maximumPayloadLength }
    package var counters: L2CAPReassemblyCounters { reassembly.pointee.counters }
    package var isAssembling: Bool { reassembly.pointee.isAssembling }
    package var bytesOwed: Int { reassembly.pointee.bytesOwed }

    package func reset() { reassembly.pointee.reset() }

    /// Takes one HCI ACL packet (the H4 payload: ACL header, then data) and reports what it
    /// completed or what was wrong with it, in that order. A delivered PDU's view is valid only
    /// during the call to `onEvent`, which must not call back into this reassembler.
    package func receive(_ aclPacket: UnsafeRawBufferPointer, _ onEvent: (L2CAPReassemblyEvent) -> Void) {
        reassembly.pointee.receive(aclPacket, onEvent)
    }

    /// Takes an ACL packet whose header was already parsed (by whoever routed it here).
    package func receive(_ packet: ACLDataPacket, _ onEvent: (L2CAPReassemblyEvent) -> Void) {
        reassembly.pointee.receive(packet, onEvent)
    }
}
