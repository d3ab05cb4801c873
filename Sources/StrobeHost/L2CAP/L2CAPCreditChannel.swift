/// One LE credit-based channel's data path (Core Vol 3, Part A, 3.4 and 10.1), with no I/O and
/// no clock: SDUs go out segmented into K-frames as the peer's credits allow; K-frames come in
/// checked against the MTU, MPS and credits this side announced and are reassembled into SDUs;
/// credits go back to the peer while the app keeps up, so a slow app throttles the peer instead
/// of losing data. Each input returns what its owner must do.
package struct L2CAPCreditChannel: Sendable {
    /// What the channel's owner must do after an input, in the order the outputs are returned.
    package enum Output: Sendable, Hashable {
        /// A K-frame's information payload, for the peer's end of the channel.
        case kFrame([UInt8])
        /// The last K-frame of the oldest SDU sent has gone out.
        case sduSent
        /// Credits to give the peer (an LE Flow Control Credit for this side's CID).
        case credits(UInt16)
        /// A whole SDU for the app.
        case sdu([UInt8])
        /// The peer broke a rule (Core Vol 3, Part A, 3.4 and 10.1), named by the error the app
        /// will see: the channel is closed, its owner sends Disconnection Request.
        case violation(L2CAPChannelError)
    }

    /// What this side receives.
    package let local: L2CAPChannelParameters
    /// The largest SDU and K-frame payload the peer receives (raised by its Credit Based
    /// Reconfigure Request).
    package private(set) var peerMTU: Int
    /// The largest K-frame information payload the peer receives, in bytes: outgoing K-frames are
    /// cut to it.
    package private(set) var peerMPS: Int
    /// K-frames this side may still send.
    package private(set) var sendCredits: Int
    /// K-frames the peer may still send.
    package private(set) var receiveCredits: Int
    /// SDUs given to the app and not yet consumed; at `receiveWindow` no more credits go back.
    package private(set) var unconsumed = 0
    /// How many SDUs may wait for the app (`consumed(_:)`) before credits stop going back; at least 1.
    package let receiveWindow: Int
    /// Whether the channel is closed, by `close()` or by a peer's violation: `send(_:)` then throws
    /// `L2CAPChannelError.notOpen` and the other inputs return nothing.
    package private(set) var isClosed = false

    private var outgoing: [[UInt8]] = []
    /// How much of `outgoing.first` has gone out.
    private var sentOfFirst = 0
    private var reassembly: (expected: Int, bytes: [UInt8])?

    /// `receiveWindow`: how many SDUs may wait for the app before credits stop going back.
    /// The peer's MTU and MPS are checked by whoever opened the channel (at least 23 each).
    package init(local: L2CAPChannelParameters, peerMTU: UInt16, peerMPS: UInt16, peerInitialCredits: UInt16, receiveWindow: Int = 4) {
        precondition(peerMTU >= 23 && peerMPS >= 23, "a channel's MTU and MPS are at least 23")
        self.local = local
        self.peerMTU = Int(peerMTU)
        self.peerMPS = Int(peerMPS)
        sendCredits = Int(peerInitialCredits)
        receiveCredits = Int(local.initialCredits)
        self.receiveWindow = max(1, receiveWindow)
    }

    /// SDUs waiting for credits, the first perhaps partly sent.
    package var queuedSDUs: Int { outgoing.count }

    /// Queues `sdu` and sends what the credits allow.
    package mutating func send(_ sdu: [UInt8]) throws(L2CAPChannelError) -> [Output] {
        guard !isClosed else { throw .notOpen }
        guard sdu.count <= peerMTU else { throw .sduTooLong(length: sdu.count, peerMTU: peerMTU) }
        outgoing.append(sdu)
        return transmit()
    }

    /// An LE Flow Control Credit from the peer.
    package mutating func receivedCredits(_ credits: UInt16) -> [Output] {
        guard !isClosed, credits > 0 else { return [] }
        guard sendCredits + Int(credits) <= 65535 else {
            return close(.creditOverflow(held: sendCredits, added: Int(credits)))
        }
        sendCredits += Int(credits)
        return transmit()
    }

    /// A K-frame's information payload from the peer.
    package mutating func received(kFrame payload: UnsafeRawBufferPointer) -> [Output] {
        guard !isClosed else { return [] }
        guard receiveCredits > 0 else { return close(.kFrameWithoutCredit) }
        receiveCredits -= 1
        guard payload.count <= Int(local.mps) else { return close(.kFrameExceedsMPS(length: payload.count, mps: Int(local.mps))) }
        var outputs: [Output] = []
        // Taken out while it grows, so the append has the only reference and copies nothing.
        if var sdu = reassembly.take() {
            guard sdu.bytes.count + payload.count <= sdu.expected else {
                return close(.sduOverrun(expected: sdu.expected, received: sdu.bytes.count + payload.count))
            }
            sdu.bytes.append(contentsOf: payload)
            reassembly = sdu
        } else {
            guard payload.count >= 2 else { return close(.truncatedFirstKFrame(length: payload.count)) }
            let expected = Int(payload[0]) | Int(payload[1]) << 8
            guard expected <= Int(local.mtu) else { return close(.sduExceedsMTU(length: expected, mtu: Int(local.mtu))) }
            guard payload.count - 2 <= expected else { return close(.sduOverrun(expected: expected, received: payload.count - 2)) }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(expected)
            bytes.append(contentsOf: payload[2...])
            reassembly = (expected, bytes)
        }
        if let sdu = reassembly, sdu.bytes.count == sdu.expected {
            reassembly = nil
            unconsumed += 1
            outputs.append(.sdu(sdu.bytes))
        }
        outputs += returnCredits()
        return outputs
    }

    /// A K-frame of `length` bytes too long for the link to take in (dropped before it got
    /// here): above the MPS too, so the channel closes rather than miss part of an SDU.
    package mutating func receivedOversized(length: Int) -> [Output] {
        isClosed ? [] : close(.kFrameExceedsMPS(length: length, mps: Int(local.mps)))
    }

    /// The app has taken `count` SDUs: credits go back if they were held for it.
    package mutating func consumed(_ count: Int = 1) -> [Output] {
        unconsumed = max(0, unconsumed - count)
        return isClosed ? [] : returnCredits()
    }

    /// The peer's Credit Based Reconfigure Request, checked by the owner: what it receives from
    /// now on, for the rest of an SDU under way too.
    package mutating func reconfigured(peerMTU: UInt16, peerMPS: UInt16) {
        self.peerMTU = Int(peerMTU)
        self.peerMPS = Int(peerMPS)
    }

    /// Closed by either side or with the link: nothing more is sent or received.
    package mutating func close() {
        isClosed = true
        outgoing = []
        reassembly = nil
    }

    private mutating func close(_ violation: L2CAPChannelError) -> [Output] {
        close()
        return [.violation(violation)]
    }

    /// K-frames for as many credits as there are: the first of an SDU carries its length.
    private mutating func transmit() -> [Output] {
        var outputs: [Output] = []
        while sendCredits > 0, let sdu = outgoing.first {
            var frame: [UInt8]
            if sentOfFirst == 0 {
                let take = min(sdu.count, peerMPS - 2)
                frame = [UInt8(sdu.count & 0xFF), UInt8(sdu.count >> 8)]
                frame.append(contentsOf: sdu[0..<take])
                sentOfFirst = take
            } else {
                let take = min(sdu.count - sentOfFirst, peerMPS)
                frame = Array(sdu[sentOfFirst..<sentOfFirst + take])
                sentOfFirst += take
            }
            sendCredits -= 1
            outputs.append(.kFrame(frame))
            if sentOfFirst == sdu.count {
                outgoing.removeFirst()
                sentOfFirst = 0
                outputs.append(.sduSent)
            }
        }
        return outputs
    }

    /// Tops the peer's credits back up to the initial grant once half are used, while fewer
    /// than `receiveWindow` SDUs wait for the app.
    private mutating func returnCredits() -> [Output] {
        let target = Int(local.initialCredits)
        guard unconsumed < receiveWindow, receiveCredits <= target / 2, receiveCredits < target else { return [] }
        let grant = target - receiveCredits
        receiveCredits = target
        return [.credits(UInt16(grant))]
    }
}
