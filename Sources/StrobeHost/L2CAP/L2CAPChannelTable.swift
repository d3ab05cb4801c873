import StrobeSecurity

/// The LE credit-based channels of one link (Core Vol 3, Part A, 4.6, 4.7, 4.22-4.24) as a state
/// machine with no I/O and no clock: the signalling that opens and closes channels, their
/// identifiers, and each channel's data path (`L2CAPCreditChannel`). Its owner feeds it
/// signalling commands, K-frames, the app's requests and response timeouts, and carries out the
/// actions it returns. Package-wide so that the fuzz target drives it.
package struct L2CAPChannelTable: Sendable {
    /// A PSM this side accepts channels on, with what it receives and the security it requires.
    package struct Listener: Sendable, Hashable {
        package var parameters: L2CAPCreditChannel.Parameters
        package var security: SMPSecurityLevel

        package init(parameters: L2CAPCreditChannel.Parameters, security: SMPSecurityLevel) {
            self.parameters = parameters
            self.security = security
        }
    }

    package enum Action: Sendable, Equatable {
        /// A signalling command to send on CID 5.
        case signal(LESignalingPacket)
        /// A K-frame's information payload to send on the peer's CID.
        case kFrame(to: L2CAPChannelID, [UInt8])
        /// A request of ours that waits for its response: `responseTimedOut` when none comes in time.
        case awaitResponse(identifier: UInt8)
        /// The request's response came (or it ended otherwise): its timer can go.
        case responseReceived(identifier: UInt8)
        /// This side's request `token` opened channel `cid`, or failed.
        case opened(L2CAPChannelID, token: UInt64)
        case openFailed(token: UInt64, L2CAPChannelError)
        /// The peer opened channel `cid` on a listened PSM.
        case accepted(L2CAPChannelID, psm: UInt16)
        case sdu(L2CAPChannelID, [UInt8])
        case sduSent(L2CAPChannelID)
        /// The channel ended: nil when either side closed it in order.
        case closed(L2CAPChannelID, L2CAPChannelError?)
    }

    private struct Entry {
        var psm: UInt16
        var peerCID: L2CAPChannelID
        var channel: L2CAPCreditChannel
    }

    private struct PendingOpen {
        var token: UInt64
        var cid: L2CAPChannelID
        var psm: UInt16
        var parameters: L2CAPCreditChannel.Parameters
    }

    private var channels: [L2CAPChannelID: Entry] = [:]
    private var pendingOpens: [UInt8: PendingOpen] = [:]
    /// Disconnection Requests of ours: the CID stays taken until answered or timed out.
    private var pendingDisconnects: [UInt8: L2CAPChannelID] = [:]
    private var nextIdentifier: UInt8 = 1
    /// Channel identifiers are handed out round-robin, so a CID just closed is not reused at once.
    private var nextCID: UInt16 = 0x0040

    /// How many SDUs may wait for the app before a channel stops giving credits back.
    package let receiveWindow: Int

    package init(receiveWindow: Int = 4) {
        self.receiveWindow = receiveWindow
    }

    /// The identifier of the link's own request waiting outside this table (a Connection
    /// Parameter Update Request), which no command of the table takes meanwhile.
    package var reservedIdentifier: UInt8?

    /// An identifier for a signalling command of this link: never 0, nor one a request still
    /// waits on.
    package mutating func allocateIdentifier() -> UInt8 {
        for _ in 0..<255 {
            let identifier = nextIdentifier
            nextIdentifier = identifier == 0xFF ? 1 : identifier + 1
            if pendingOpens[identifier] == nil, pendingDisconnects[identifier] == nil, identifier != reservedIdentifier {
                return identifier
            }
        }
        return nextIdentifier  // every identifier waits: the RTX ends them in time
    }

    package var openChannels: Int { channels.count }

    package func channel(_ cid: L2CAPChannelID) -> L2CAPCreditChannel? { channels[cid]?.channel }

    package func psm(of cid: L2CAPChannelID) -> UInt16? { channels[cid]?.psm }

    // MARK: The app

    /// LE Credit Based Connection Request for `psm`; `token` names the request in its outcome.
    package mutating func open(psm: UInt16, parameters: L2CAPCreditChannel.Parameters, token: UInt64) throws(L2CAPChannelError) -> [Action] {
        guard (0x0001...0x00FF).contains(psm) else { throw .invalidParameters("SPSM \(l2capHex(psm)) is outside 0x0001-0x00FF") }
        guard parameters.isValid, parameters.initialCredits > 0 else {
            throw .invalidParameters("MTU \(parameters.mtu), MPS \(parameters.mps), \(parameters.initialCredits) credits: "
                + "MTU and MPS at least 23, MPS at most 65533, credits at least 1")
        }
        guard let cid = freeCID() else { throw .noFreeChannelID }
        let identifier = allocateIdentifier()
        pendingOpens[identifier] = PendingOpen(token: token, cid: cid, psm: psm, parameters: parameters)
        let request = LECreditBasedConnectionRequest(spsm: psm, sourceCID: cid, mtu: parameters.mtu, mps: parameters.mps,
                                                     initialCredits: parameters.initialCredits)
        return [.signal(request.packet(identifier: identifier)), .awaitResponse(identifier: identifier)]
    }

    package mutating func send(_ sdu: [UInt8], on cid: L2CAPChannelID) throws(L2CAPChannelError) -> [Action] {
        guard var entry = channels[cid] else { throw .notOpen }
        let outputs = try entry.channel.send(sdu)
        channels[cid] = entry
        return actions(for: outputs, cid)
    }

    package mutating func consumed(_ count: Int, on cid: L2CAPChannelID) -> [Action] {
        guard var entry = channels[cid] else { return [] }
        let outputs = entry.channel.consumed(count)
        channels[cid] = entry
        return actions(for: outputs, cid)
    }

    /// Disconnection Request for one of this side's channels.
    package mutating func close(_ cid: L2CAPChannelID) -> [Action] {
        guard channels[cid] != nil, !pendingDisconnects.values.contains(cid) else { return [] }
        return disconnect(cid, because: nil)
    }

    // MARK: The peer

    /// A K-frame on one of this side's channels; nil when no channel has that CID.
    package mutating func received(kFrame payload: UnsafeRawBufferPointer, on cid: L2CAPChannelID) -> [Action]? {
        guard var entry = channels[cid] else { return nil }
        let outputs = entry.channel.received(kFrame: payload)
        channels[cid] = entry
        return actions(for: outputs, cid)
    }

    /// A signalling command about credit-based channels; nil when it is about something else.
    /// `level` is the link's security, `hasBondKey` whether a bond could encrypt it.
    package mutating func received(_ packet: LESignalingPacket, listeners: [UInt16: Listener], level: SMPSecurityLevel,
                           hasBondKey: Bool) throws(L2CAPSignalingError) -> [Action]? {
        switch LESignalingCode(rawValue: packet.code) {
        case .leCreditBasedConnectionRequest:
            let request = try LECreditBasedConnectionRequest(data: packet.data)
            return accept(request, identifier: packet.identifier, listeners: listeners, level: level, hasBondKey: hasBondKey)
        case .leCreditBasedConnectionResponse:
            let response = try LECreditBasedConnectionResponse(data: packet.data)
            return opened(response, identifier: packet.identifier)
        case .flowControlCredit:
            let credit = try LEFlowControlCredit(data: packet.data)
            // The CID is the sender's own end of the channel; one of no channel is ignored.
            guard let (cid, found) = channels.first(where: { $0.value.peerCID == credit.cid && !$0.value.channel.isClosed })
            else { return [] }
            var entry = found
            let outputs = entry.channel.receivedCredits(credit.credits)
            channels[cid] = entry
            return actions(for: outputs, cid)
        case .disconnectionRequest:
            let request = try L2CAPDisconnection(data: packet.data, code: .disconnectionRequest)
            guard let entry = channels[request.destinationCID] else {
                // Command Reject, invalid CID in request: the CIDs as this side sees them.
                return [.signal(.invalidCIDInRequest(identifier: packet.identifier, local: request.destinationCID, remote: request.sourceCID))]
            }
            // A request naming another source CID is dropped (4.6).
            guard entry.peerCID == request.sourceCID else { return [] }
            let wasOpen = !entry.channel.isClosed
            channels[request.destinationCID] = nil
            for (identifier, cid) in pendingDisconnects where cid == request.destinationCID { pendingDisconnects[identifier] = nil }
            var actions: [Action] = [.signal(request.response(identifier: packet.identifier))]
            if wasOpen { actions.append(.closed(request.destinationCID, nil)) }
            return actions
        case .disconnectionResponse:
            guard let cid = pendingDisconnects.removeValue(forKey: packet.identifier) else { return [] }
            channels[cid] = nil
            return [.responseReceived(identifier: packet.identifier)]
        case .commandReject:
            if let pending = pendingOpens.removeValue(forKey: packet.identifier) {
                let reason = packet.data.count >= 2 ? UInt16(packet.data[0]) | UInt16(packet.data[1]) << 8 : 0
                return [.responseReceived(identifier: packet.identifier), .openFailed(token: pending.token, .commandRejected(reason: reason))]
            }
            if let cid = pendingDisconnects.removeValue(forKey: packet.identifier) {
                channels[cid] = nil
                return [.responseReceived(identifier: packet.identifier)]
            }
            return nil
        default:
            return nil
        }
    }

    /// No response came to request `identifier`.
    package mutating func responseTimedOut(_ identifier: UInt8, after timeout: Duration) -> [Action] {
        if let pending = pendingOpens.removeValue(forKey: identifier) {
            return [.openFailed(token: pending.token, .timeout(after: timeout))]
        }
        if let cid = pendingDisconnects.removeValue(forKey: identifier) { channels[cid] = nil }
        return []
    }

    /// The link ended: every channel and request with it.
    package mutating func linkClosed() -> [Action] {
        var actions: [Action] = pendingOpens.values.map { .openFailed(token: $0.token, .linkClosed) }
        for (cid, entry) in channels where !entry.channel.isClosed { actions.append(.closed(cid, .linkClosed)) }
        channels = [:]
        pendingOpens = [:]
        pendingDisconnects = [:]
        return actions
    }

    // MARK: Inside

    /// Checks in the order of Core Vol 3, Part A, 4.22: parameters, PSM, security, then the CID.
    private mutating func accept(_ request: LECreditBasedConnectionRequest, identifier: UInt8, listeners: [UInt16: Listener],
                                 level: SMPSecurityLevel, hasBondKey: Bool) -> [Action] {
        func refuse(_ result: L2CAPCreditBasedResult) -> [Action] {
            [.signal(LECreditBasedConnectionResponse.refusal(result).packet(identifier: identifier))]
        }
        let asked = L2CAPCreditChannel.Parameters(mtu: request.mtu, mps: request.mps, initialCredits: request.initialCredits)
        guard asked.isValid else { return refuse(.unacceptableParameters) }
        guard (0x0001...0x00FF).contains(request.spsm), let listener = listeners[request.spsm] else { return refuse(.spsmNotSupported) }
        if level < listener.security {
            // Encrypted, but not enough: authentication. Plain, with a key that could encrypt: encryption.
            return refuse(level == .none && hasBondKey ? .insufficientEncryption : .insufficientAuthentication)
        }
        guard request.sourceCID.isDynamicLE else { return refuse(.invalidSourceCID) }
        guard !channels.values.contains(where: { $0.peerCID == request.sourceCID }) else { return refuse(.sourceCIDAlreadyAllocated) }
        guard let cid = freeCID() else { return refuse(.noResources) }
        let channel = L2CAPCreditChannel(local: listener.parameters, peerMTU: request.mtu, peerMPS: request.mps,
                                         peerInitialCredits: request.initialCredits, receiveWindow: receiveWindow)
        channels[cid] = Entry(psm: request.spsm, peerCID: request.sourceCID, channel: channel)
        let response = LECreditBasedConnectionResponse(destinationCID: cid, mtu: listener.parameters.mtu, mps: listener.parameters.mps,
                                                       initialCredits: listener.parameters.initialCredits, result: .success)
        return [.signal(response.packet(identifier: identifier)), .accepted(cid, psm: request.spsm)]
    }

    private mutating func opened(_ response: LECreditBasedConnectionResponse, identifier: UInt8) -> [Action] {
        guard let pending = pendingOpens.removeValue(forKey: identifier) else { return [] }
        let answered = Action.responseReceived(identifier: identifier)
        guard response.result == .success else { return [answered, .openFailed(token: pending.token, .refused(response.result))] }
        let peer = L2CAPCreditChannel.Parameters(mtu: response.mtu, mps: response.mps, initialCredits: response.initialCredits)
        // A destination CID another channel of the link has would take that channel's credits.
        let taken = channels.values.contains { $0.peerCID == response.destinationCID }
        guard peer.isValid, response.destinationCID.isDynamicLE, !taken else {
            // Accepted with what no channel can use: this side ends it at once.
            channels[pending.cid] = Entry(psm: pending.psm, peerCID: response.destinationCID, channel: Self.closedChannel(pending.parameters))
            let identifier = allocateIdentifier()
            pendingDisconnects[identifier] = pending.cid
            let disconnection = L2CAPDisconnection(destinationCID: response.destinationCID, sourceCID: pending.cid)
            return [answered, .signal(disconnection.request(identifier: identifier)), .awaitResponse(identifier: identifier),
                    .openFailed(token: pending.token, .invalidParameters(
                        "the peer accepted with CID \(l2capHex(response.destinationCID.rawValue)), MTU \(response.mtu), MPS \(response.mps)"))]
        }
        let channel = L2CAPCreditChannel(local: pending.parameters, peerMTU: response.mtu, peerMPS: response.mps,
                                         peerInitialCredits: response.initialCredits, receiveWindow: receiveWindow)
        channels[pending.cid] = Entry(psm: pending.psm, peerCID: response.destinationCID, channel: channel)
        return [answered, .opened(pending.cid, token: pending.token)]
    }

    private static func closedChannel(_ parameters: L2CAPCreditChannel.Parameters) -> L2CAPCreditChannel {
        var channel = L2CAPCreditChannel(local: parameters, peerMTU: 23, peerMPS: 23, peerInitialCredits: 0)
        channel.close()
        return channel
    }

    private mutating func disconnect(_ cid: L2CAPChannelID, because error: L2CAPChannelError?) -> [Action] {
        guard var entry = channels[cid] else { return [] }
        entry.channel.close()
        channels[cid] = entry
        let identifier = allocateIdentifier()
        pendingDisconnects[identifier] = cid
        let disconnection = L2CAPDisconnection(destinationCID: entry.peerCID, sourceCID: cid)
        return [.signal(disconnection.request(identifier: identifier)), .awaitResponse(identifier: identifier), .closed(cid, error)]
    }

    private mutating func actions(for outputs: [L2CAPCreditChannel.Output], _ cid: L2CAPChannelID) -> [Action] {
        var actions: [Action] = []
        for output in outputs {
            switch output {
            case .kFrame(let frame):
                if let peer = channels[cid]?.peerCID { actions.append(.kFrame(to: peer, frame)) }
            case .sduSent:
                actions.append(.sduSent(cid))
            case .credits(let credits):
                actions.append(.signal(LEFlowControlCredit(cid: cid, credits: credits).packet(identifier: allocateIdentifier())))
            case .sdu(let sdu):
                actions.append(.sdu(cid, sdu))
            case .violation(let violation):
                actions += disconnect(cid, because: .violation(violation))
            }
        }
        return actions
    }

    private mutating func freeCID() -> L2CAPChannelID? {
        let taken = Set(channels.keys).union(pendingOpens.values.map(\.cid))
        for step in 0..<64 {
            let candidate = 0x0040 + (nextCID - 0x0040 + UInt16(step)) % 64
            let cid = L2CAPChannelID(candidate)
            if !taken.contains(cid) {
                nextCID = 0x0040 + (candidate - 0x0040 + 1) % 64
                return cid
            }
        }
        return nil
    }
}
