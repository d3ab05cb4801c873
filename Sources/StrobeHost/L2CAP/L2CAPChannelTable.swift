import StrobeSecurity

/// The LE credit-based channels of one link (Core Vol 3, Part A, 4.6, 4.7, 4.22-4.28) as a state
/// machine with no I/O and no clock: the signalling that opens (one at a time, or up to five in
/// one enhanced request), reconfigures and closes channels, their
/// identifiers, and each channel's data path (`L2CAPCreditChannel`). Its owner feeds it
/// signalling commands, K-frames, the app's requests and response timeouts, and carries out the
/// actions it returns. Package-wide so that the fuzz target drives it.
package struct L2CAPChannelTable: Sendable {
    /// A PSM this side accepts channels on, with what it receives and the security it requires.
    package struct Listener: Sendable, Hashable {
        package var parameters: L2CAPChannelParameters
        package var security: SMPSecurityLevel

        package init(parameters: L2CAPChannelParameters, security: SMPSecurityLevel) {
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
        /// This side's request `token` opened these channels (an enhanced request may open fewer
        /// than it asked for), or failed.
        case opened([L2CAPChannelID], token: UInt64)
        case openFailed(token: UInt64, L2CAPChannelError)
        /// The peer opened channel `cid` on a listened PSM.
        case accepted(L2CAPChannelID, psm: UInt16)
        case sdu(L2CAPChannelID, [UInt8])
        case sduSent(L2CAPChannelID)
        /// The peer reconfigured the channel: it now receives SDUs up to `peerMTU` bytes.
        case reconfigured(L2CAPChannelID, peerMTU: Int)
        /// The channel ended: nil when either side closed it in order.
        case closed(L2CAPChannelID, L2CAPChannelError?)
    }

    private struct Entry {
        var psm: UInt16
        var peerCID: L2CAPChannelID
        var channel: L2CAPCreditChannel
        /// Opened by a Credit Based Connection Request: the peer may reconfigure it.
        var enhanced = false

        mutating func run<E: Error>(_ body: (inout L2CAPCreditChannel) throws(E) -> [L2CAPCreditChannel.Output])
            throws(E) -> [L2CAPCreditChannel.Output] {
            try body(&channel)
        }
    }

    private struct PendingOpen {
        var token: UInt64
        var cids: [L2CAPChannelID]
        var psm: UInt16
        var parameters: L2CAPChannelParameters
        var enhanced: Bool
        /// The peer answered "pending" once: its timer was restarted then, and is not again.
        var answeredPending = false
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
    package mutating func open(psm: UInt16, parameters: L2CAPChannelParameters, token: UInt64) throws(L2CAPChannelError) -> [Action] {
        try Self.check(psm: psm, parameters, enhanced: false)
        guard let cid = freeCIDs(1).first else { throw .noFreeChannelID }
        let identifier = allocateIdentifier()
        pendingOpens[identifier] = PendingOpen(token: token, cids: [cid], psm: psm, parameters: parameters, enhanced: false)
        let request = LECreditBasedConnectionRequest(spsm: psm, sourceCID: cid, mtu: parameters.mtu, mps: parameters.mps,
                                                     initialCredits: parameters.initialCredits)
        return [.signal(request.packet(identifier: identifier)), .awaitResponse(identifier: identifier)]
    }

    /// Credit Based Connection Request for `count` channels (1 to 5) to `psm`, all with
    /// `parameters` (MTU and MPS at least 64).
    package mutating func openEnhanced(psm: UInt16, count: Int, parameters: L2CAPChannelParameters, token: UInt64)
        throws(L2CAPChannelError) -> [Action] {
        try Self.check(psm: psm, parameters, enhanced: true)
        guard (1...CreditBasedConnectionRequest.maximumChannels).contains(count) else {
            throw .invalidParameters("\(count) channels in one request: 1 to \(CreditBasedConnectionRequest.maximumChannels)")
        }
        let cids = freeCIDs(count)
        guard cids.count == count else { throw .noFreeChannelID }
        let identifier = allocateIdentifier()
        pendingOpens[identifier] = PendingOpen(token: token, cids: cids, psm: psm, parameters: parameters, enhanced: true)
        let request = CreditBasedConnectionRequest(spsm: psm, mtu: parameters.mtu, mps: parameters.mps,
                                                   initialCredits: parameters.initialCredits, sourceCIDs: cids)
        return [.signal(request.packet(identifier: identifier)), .awaitResponse(identifier: identifier)]
    }

    /// The ranges of Core Vol 3, Part A, 4.22 (LE) and 4.25 (enhanced) for what this side asks.
    package static func check(psm: UInt16, _ parameters: L2CAPChannelParameters, enhanced: Bool) throws(L2CAPChannelError) {
        guard (0x0001...0x00FF).contains(psm) else { throw .invalidParameters("SPSM \(l2capHex(psm)) is outside 0x0001-0x00FF") }
        let minimum = enhanced ? CreditBasedConnectionRequest.minimumMTU : 23
        guard parameters.isValid, parameters.mtu >= minimum, parameters.mps >= minimum, parameters.initialCredits > 0 else {
            throw .invalidParameters("MTU \(parameters.mtu), MPS \(parameters.mps), \(parameters.initialCredits) credits: "
                + "MTU and MPS at least \(minimum), MPS at most 65533, credits at least 1")
        }
    }

    package mutating func send(_ sdu: [UInt8], on cid: L2CAPChannelID) throws(L2CAPChannelError) -> [Action] {
        guard channels[cid] != nil else { throw .notOpen }
        return try update(cid) { channel throws(L2CAPChannelError) in try channel.send(sdu) } ?? []
    }

    package mutating func consumed(_ count: Int, on cid: L2CAPChannelID) -> [Action] {
        update(cid) { $0.consumed(count) } ?? []
    }

    /// Disconnection Request for one of this side's channels.
    package mutating func close(_ cid: L2CAPChannelID) -> [Action] {
        guard channels[cid] != nil, !pendingDisconnects.values.contains(cid) else { return [] }
        return disconnect(cid, because: nil)
    }

    // MARK: The peer

    /// A K-frame on one of this side's channels; nil when no channel has that CID.
    package mutating func received(kFrame payload: UnsafeRawBufferPointer, on cid: L2CAPChannelID) -> [Action]? {
        update(cid) { $0.received(kFrame: payload) }
    }

    /// A K-frame on `cid` that the link dropped as longer than it takes in.
    package mutating func received(oversizedKFrameOf length: Int, on cid: L2CAPChannelID) -> [Action] {
        update(cid) { $0.receivedOversized(length: length) } ?? []
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
        case .creditBasedConnectionRequest:
            let request = try CreditBasedConnectionRequest(data: packet.data)
            return acceptEnhanced(request, identifier: packet.identifier, listeners: listeners, level: level, hasBondKey: hasBondKey)
        case .creditBasedConnectionResponse:
            let response = try CreditBasedConnectionResponse(data: packet.data)
            return openedEnhanced(response, identifier: packet.identifier)
        case .creditBasedReconfigureRequest:
            let request = try CreditBasedReconfigureRequest(data: packet.data)
            return reconfigure(request, identifier: packet.identifier)
        case .creditBasedReconfigureResponse:
            // This side sends no Reconfigure Request: an answer to nothing.
            return []
        case .flowControlCredit:
            let credit = try LEFlowControlCredit(data: packet.data)
            // The CID is the sender's own end of the channel; one of no channel is ignored.
            guard let cid = channels.first(where: { $0.value.peerCID == credit.cid && !$0.value.channel.isClosed })?.key
            else { return [] }
            return update(cid) { $0.receivedCredits(credit.credits) } ?? []
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
        let asked = L2CAPChannelParameters(mtu: request.mtu, mps: request.mps, initialCredits: request.initialCredits)
        guard asked.isValid else { return refuse(.unacceptableParameters) }
        guard (0x0001...0x00FF).contains(request.spsm), let listener = listeners[request.spsm] else { return refuse(.spsmNotSupported) }
        if level < listener.security {
            // Encrypted, but not enough: authentication. Plain, with a key that could encrypt: encryption.
            return refuse(level == .none && hasBondKey ? .insufficientEncryption : .insufficientAuthentication)
        }
        guard request.sourceCID.isDynamicLE else { return refuse(.invalidSourceCID) }
        guard !channels.values.contains(where: { $0.peerCID == request.sourceCID }) else { return refuse(.sourceCIDAlreadyAllocated) }
        guard let cid = freeCIDs(1).first else { return refuse(.noResources) }
        let channel = L2CAPCreditChannel(local: listener.parameters, peerMTU: request.mtu, peerMPS: request.mps,
                                         peerInitialCredits: request.initialCredits, receiveWindow: receiveWindow)
        channels[cid] = Entry(psm: request.spsm, peerCID: request.sourceCID, channel: channel)
        let response = LECreditBasedConnectionResponse(destinationCID: cid, mtu: listener.parameters.mtu, mps: listener.parameters.mps,
                                                       initialCredits: listener.parameters.initialCredits, result: .success)
        return [.signal(response.packet(identifier: identifier)), .accepted(cid, psm: request.spsm)]
    }

    private mutating func opened(_ response: LECreditBasedConnectionResponse, identifier: UInt8) -> [Action] {
        guard let pending = pendingOpens[identifier], !pending.enhanced, let cid = pending.cids.first else { return [] }
        pendingOpens[identifier] = nil
        let answered = Action.responseReceived(identifier: identifier)
        guard response.result == .success else { return [answered, .openFailed(token: pending.token, .refused(response.result))] }
        let usable = L2CAPChannelParameters(mtu: response.mtu, mps: response.mps, initialCredits: 0).isValid
        if let actions = establish(cid, peerCID: response.destinationCID, pending, response.mtu, response.mps, response.initialCredits,
                                   usable: usable) {
            return [answered] + actions + [.openFailed(token: pending.token, .invalidParameters(
                "the peer accepted with CID \(l2capHex(response.destinationCID.rawValue)), MTU \(response.mtu), MPS \(response.mps)"))]
        }
        return [answered, .opened([cid], token: pending.token)]
    }

    /// The response to an enhanced request: each channel the peer gave a destination CID opens,
    /// the rest were refused; a result that is neither success nor "some refused" refuses all.
    private mutating func openedEnhanced(_ response: CreditBasedConnectionResponse, identifier: UInt8) -> [Action] {
        guard var pending = pendingOpens[identifier], pending.enhanced else { return [] }
        // Pending (0x000D-0x000F): the final response follows under the same identifier. The
        // timer restarts once; a peer that keeps saying pending runs into it.
        if response.result.isPending {
            guard !pending.answeredPending else { return [] }
            pending.answeredPending = true
            pendingOpens[identifier] = pending
            return [.awaitResponse(identifier: identifier)]
        }
        pendingOpens[identifier] = nil
        var actions: [Action] = [.responseReceived(identifier: identifier)]
        let some: Set<L2CAPCreditBasedResult> = [.success, .noResources, .invalidSourceCID, .sourceCIDAlreadyAllocated]
        let minimum = CreditBasedConnectionRequest.minimumMTU
        // A response with another number of CIDs than asked for, or CIDs under a result that
        // refuses all, is not one this side can trust: whatever the peer opened is ended.
        let trusted = some.contains(response.result) && response.destinationCIDs.count == pending.cids.count
        let usable = trusted && response.mtu >= minimum && (minimum...65533).contains(response.mps)
        var opened: [L2CAPChannelID] = []
        for (cid, peerCID) in zip(pending.cids, response.destinationCIDs) where peerCID.rawValue != 0 {
            if let ended = establish(cid, peerCID: peerCID, pending, response.mtu, response.mps, response.initialCredits, usable: usable) {
                actions += ended
            } else {
                opened.append(cid)
            }
        }
        guard !opened.isEmpty else {
            let accepted = response.destinationCIDs.contains { $0.rawValue != 0 }
            // Channels accepted and ended here, or "success" with none: the answer was unusable.
            let error: L2CAPChannelError = accepted || response.result == .success
                ? .invalidParameters("the peer answered \(pending.cids.count) channels with \(response.destinationCIDs.count) CIDs, "
                    + "\(response.result), MTU \(response.mtu), MPS \(response.mps)")
                : .refused(response.result)
            return actions + [.openFailed(token: pending.token, error)]
        }
        return actions + [.opened(opened, token: pending.token)]
    }

    /// One channel the peer accepted: open, or (when its parameters are unusable or its CID is
    /// not a dynamic one, or already another channel's, which would take that channel's
    /// credits) ended at once by this side, with the actions that end it.
    private mutating func establish(_ cid: L2CAPChannelID, peerCID: L2CAPChannelID, _ pending: PendingOpen,
                                    _ mtu: UInt16, _ mps: UInt16, _ credits: UInt16, usable: Bool) -> [Action]? {
        let taken = channels.values.contains { $0.peerCID == peerCID }
        guard usable, peerCID.isDynamicLE, !taken else {
            channels[cid] = Entry(psm: pending.psm, peerCID: peerCID, channel: Self.closedChannel(pending.parameters))
            let identifier = allocateIdentifier()
            pendingDisconnects[identifier] = cid
            let disconnection = L2CAPDisconnection(destinationCID: peerCID, sourceCID: cid)
            return [.signal(disconnection.request(identifier: identifier)), .awaitResponse(identifier: identifier)]
        }
        let channel = L2CAPCreditChannel(local: pending.parameters, peerMTU: mtu, peerMPS: mps, peerInitialCredits: credits,
                                         receiveWindow: receiveWindow)
        channels[cid] = Entry(psm: pending.psm, peerCID: peerCID, channel: channel, enhanced: pending.enhanced)
        return nil
    }

    /// Checks in the order of Core Vol 3, Part A, 4.25: the request's own ranges, PSM, security,
    /// then each source CID; a CID refused refuses that channel only.
    private mutating func acceptEnhanced(_ request: CreditBasedConnectionRequest, identifier: UInt8, listeners: [UInt16: Listener],
                                         level: SMPSecurityLevel, hasBondKey: Bool) -> [Action] {
        let count = request.sourceCIDs.count
        func refuse(_ result: L2CAPCreditBasedResult) -> [Action] {
            [.signal(CreditBasedConnectionResponse.refusal(result, count: count).packet(identifier: identifier))]
        }
        let minimum = CreditBasedConnectionRequest.minimumMTU
        guard (1...CreditBasedConnectionRequest.maximumChannels).contains(count), request.mtu >= minimum,
              (minimum...65533).contains(request.mps) else { return refuse(.invalidParameters) }
        guard (0x0001...0x00FF).contains(request.spsm), let listener = listeners[request.spsm] else { return refuse(.spsmNotSupported) }
        if level < listener.security {
            return refuse(level == .none && hasBondKey ? .insufficientEncryption : .insufficientAuthentication)
        }
        // A listener set up for less than an enhanced channel's minimum cannot answer one.
        guard listener.parameters.mtu >= minimum, listener.parameters.mps >= minimum else { return refuse(.unacceptableParameters) }
        var result = L2CAPCreditBasedResult.success
        var destinations: [L2CAPChannelID] = []
        var accepted: [Action] = []
        for source in request.sourceCIDs {
            guard source.isDynamicLE else {
                result = .invalidSourceCID
                destinations.append(L2CAPChannelID(0))
                continue
            }
            guard !channels.values.contains(where: { $0.peerCID == source }) else {
                result = .sourceCIDAlreadyAllocated
                destinations.append(L2CAPChannelID(0))
                continue
            }
            guard let cid = freeCIDs(1).first else {
                result = .noResources
                destinations.append(L2CAPChannelID(0))
                continue
            }
            let channel = L2CAPCreditChannel(local: listener.parameters, peerMTU: request.mtu, peerMPS: request.mps,
                                             peerInitialCredits: request.initialCredits, receiveWindow: receiveWindow)
            channels[cid] = Entry(psm: request.spsm, peerCID: source, channel: channel, enhanced: true)
            destinations.append(cid)
            accepted.append(.accepted(cid, psm: request.spsm))
        }
        let opened = !accepted.isEmpty
        let response = CreditBasedConnectionResponse(
            mtu: opened ? listener.parameters.mtu : 0, mps: opened ? listener.parameters.mps : 0,
            initialCredits: opened ? listener.parameters.initialCredits : 0, result: result, destinationCIDs: destinations)
        return [.signal(response.packet(identifier: identifier))] + accepted
    }

    /// The peer's Credit Based Reconfigure Request (4.27): every channel named is checked before
    /// any changes, and all change or none.
    private mutating func reconfigure(_ request: CreditBasedReconfigureRequest, identifier: UInt8) -> [Action] {
        func respond(_ result: CreditBasedReconfigureResult) -> [Action] { [.signal(result.packet(identifier: identifier))] }
        let minimum = CreditBasedConnectionRequest.minimumMTU
        let count = request.destinationCIDs.count
        guard (1...CreditBasedConnectionRequest.maximumChannels).contains(count), request.mtu >= minimum,
              (minimum...65533).contains(request.mps) else { return respond(.unacceptableParameters) }
        var targets: [L2CAPChannelID] = []
        for peerCID in request.destinationCIDs {
            // The request names the sender's own ends of its channels.
            guard let (cid, entry) = channels.first(where: { $0.value.peerCID == peerCID && !$0.value.channel.isClosed }),
                  entry.enhanced, !targets.contains(cid) else { return respond(.invalidDestinationCID) }
            if Int(request.mtu) < entry.channel.peerMTU { return respond(.mtuReduced) }
            if count > 1, Int(request.mps) < entry.channel.peerMPS { return respond(.mpsReducedOnSeveralChannels) }
            targets.append(cid)
        }
        // Applied before the answer goes: once the peer hears success, the channels use the sizes.
        var actions: [Action] = []
        for cid in targets {
            channels[cid]?.channel.reconfigured(peerMTU: request.mtu, peerMPS: request.mps)
            actions.append(.reconfigured(cid, peerMTU: Int(request.mtu)))
        }
        return actions + respond(.success)
    }

    private static func closedChannel(_ parameters: L2CAPChannelParameters) -> L2CAPCreditChannel {
        var channel = L2CAPCreditChannel(local: parameters, peerMTU: 23, peerMPS: 23, peerInitialCredits: 0)
        channel.close()
        return channel
    }

    private mutating func disconnect(_ cid: L2CAPChannelID, because error: L2CAPChannelError?) -> [Action] {
        guard let entry = channels[cid] else { return [] }
        channels[cid]?.channel.close()
        let identifier = allocateIdentifier()
        pendingDisconnects[identifier] = cid
        let disconnection = L2CAPDisconnection(destinationCID: entry.peerCID, sourceCID: cid)
        return [.signal(disconnection.request(identifier: identifier)), .awaitResponse(identifier: identifier), .closed(cid, error)]
    }

    /// `body` on channel `cid`'s data path, in place (a copy taken out of the dictionary would
    /// copy the SDU being reassembled or sent on each K-frame), and what it returns as actions;
    /// nil when no channel has that CID.
    private mutating func update<E: Error>(_ cid: L2CAPChannelID, _ body: (inout L2CAPCreditChannel) throws(E) -> [L2CAPCreditChannel.Output])
        throws(E) -> [Action]? {
        guard let outputs = try channels[cid]?.run(body) else { return nil }
        return actions(for: outputs, cid)
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
                actions += disconnect(cid, because: violation)
            }
        }
        return actions
    }

    /// Up to `count` CIDs no channel or request of this side holds.
    private mutating func freeCIDs(_ count: Int) -> [L2CAPChannelID] {
        var taken = Set(channels.keys).union(pendingOpens.values.flatMap(\.cids))
        var found: [L2CAPChannelID] = []
        for step in 0..<64 where found.count < count {
            let candidate = 0x0040 + (nextCID - 0x0040 + UInt16(step)) % 64
            let cid = L2CAPChannelID(candidate)
            if taken.insert(cid).inserted {
                found.append(cid)
            }
        }
        if let last = found.last { nextCID = 0x0040 + (last.rawValue - 0x0040 + 1) % 64 }
        return found
    }
}
