import StrobeSecurity
import Testing

import StrobeHost

/// Enhanced credit-based channels (Core Vol 3, Part A, 4.25-4.28) in one link's channel table:
/// several channels in one request both ways, the refusals of a whole request and of single
/// channels, pending answers, and the peer's reconfiguration.
@Suite struct EnhancedCreditBasedChannelTests {
    typealias Action = L2CAPChannelTable.Action
    static let parameters = L2CAPChannelParameters(mtu: 512, mps: 100, initialCredits: 8)
    static let listeners: [UInt16: L2CAPChannelTable.Listener] = [
        0x80: .init(parameters: parameters, security: .none),
        0x81: .init(parameters: parameters, security: .unauthenticated),
        0x82: .init(parameters: .init(mtu: 512, mps: 40, initialCredits: 8), security: .none),
    ]

    static func receive(_ table: inout L2CAPChannelTable, _ packet: LESignalingPacket, level: SMPSecurityLevel = .none,
                        hasBondKey: Bool = false) throws -> [Action]? {
        try table.received(packet, listeners: listeners, level: level, hasBondKey: hasBondKey)
    }

    static func request(psm: UInt16 = 0x80, cids: [UInt16] = [0x0060, 0x0061, 0x0062], mtu: UInt16 = 256, mps: UInt16 = 64)
        -> LESignalingPacket {
        CreditBasedConnectionRequest(spsm: psm, mtu: mtu, mps: mps, initialCredits: 3, sourceCIDs: cids.map { L2CAPChannelID($0) })
            .packet(identifier: 7)
    }

    static func response(_ actions: [Action]?) throws -> CreditBasedConnectionResponse {
        guard case .signal(let packet)? = actions?.first else { throw L2CAPChannelError.notOpen }
        return try CreditBasedConnectionResponse(data: packet.data)
    }

    static func cids(_ raw: [UInt16]) -> [L2CAPChannelID] { raw.map { L2CAPChannelID($0) } }

    @Test func theCommandsRoundTripAndOddLengthsAreMalformed() throws {
        let request = CreditBasedConnectionRequest(spsm: 0x80, mtu: 512, mps: 247, initialCredits: 10, sourceCIDs: Self.cids([0x40, 0x41]))
        let packet = request.packet(identifier: 2)
        #expect(packet.encoded == [0x17, 0x02, 0x0C, 0x00, 0x80, 0x00, 0x00, 0x02, 0xF7, 0x00, 0x0A, 0x00, 0x40, 0x00, 0x41, 0x00])
        #expect(try CreditBasedConnectionRequest(data: packet.data) == request)
        let response = CreditBasedConnectionResponse(mtu: 64, mps: 64, initialCredits: 1, result: .noResources, destinationCIDs: Self.cids([0x50, 0]))
        #expect(try CreditBasedConnectionResponse(data: response.packet(identifier: 2).data) == response)
        let reconfigure = CreditBasedReconfigureRequest(mtu: 100, mps: 70, destinationCIDs: Self.cids([0x44]))
        #expect(try CreditBasedReconfigureRequest(data: reconfigure.packet(identifier: 3).data) == reconfigure)
        #expect(CreditBasedReconfigureResult.mtuReduced.packet(identifier: 3).encoded == [0x1A, 0x03, 0x02, 0x00, 0x01, 0x00])
        #expect(throws: L2CAPSignalingError.badCIDList(code: 0x17, minimum: 8, actual: 9)) {
            try CreditBasedConnectionRequest(data: Array(repeating: 0, count: 9))
        }
        #expect(throws: L2CAPSignalingError.badCIDList(code: 0x19, minimum: 4, actual: 3)) {
            try CreditBasedReconfigureRequest(data: [1, 2, 3])
        }
    }

    @Test func thePeersRequestOpensEveryChannelItAsksFor() throws {
        var table = L2CAPChannelTable()
        let actions = try #require(try Self.receive(&table, Self.request()))
        let response = CreditBasedConnectionResponse(mtu: 512, mps: 100, initialCredits: 8, result: .success,
                                                     destinationCIDs: Self.cids([0x40, 0x41, 0x42]))
        #expect(actions == [.signal(response.packet(identifier: 7)), .accepted(L2CAPChannelID(0x40), psm: 0x80),
                            .accepted(L2CAPChannelID(0x41), psm: 0x80), .accepted(L2CAPChannelID(0x42), psm: 0x80)])
        #expect(table.openChannels == 3)
        // Each goes out on the peer's CID within its MPS of 64.
        let sent = try table.send(Array(repeating: 5, count: 70), on: L2CAPChannelID(0x41))
        #expect(sent == [.kFrame(to: L2CAPChannelID(0x61), [70, 0] + Array(repeating: 5, count: 62)),
                         .kFrame(to: L2CAPChannelID(0x61), Array(repeating: 5, count: 8)), .sduSent(L2CAPChannelID(0x41))])
        // Credits go back naming this side's CID, once half the 8 given are used and the SDUs read.
        var credits: [LEFlowControlCredit] = []
        for index in 0..<4 {
            let frame: [UInt8] = [1, 0, UInt8(index)]
            let actions = frame.withUnsafeBytes { table.received(kFrame: $0, on: L2CAPChannelID(0x41)) } ?? []
            #expect(actions.first == .sdu(L2CAPChannelID(0x41), [UInt8(index)]))
            credits += (actions + table.consumed(1, on: L2CAPChannelID(0x41))).compactMap {
                if case .signal(let packet) = $0 { try? LEFlowControlCredit(data: packet.data) } else { nil }
            }
        }
        #expect(credits == [LEFlowControlCredit(cid: L2CAPChannelID(0x41), credits: 4)])
    }

    @Test(arguments: [
        (request(cids: []), SMPSecurityLevel.none, false, L2CAPCreditBasedResult.invalidParameters),
        (request(cids: [0x40, 0x41, 0x42, 0x43, 0x44, 0x45]), .none, false, .invalidParameters),
        (request(mtu: 63), .none, false, .invalidParameters),
        (request(mps: 63), .none, false, .invalidParameters),
        (request(psm: 0x90), .none, false, .spsmNotSupported),
        (request(psm: 0x81), .none, false, .insufficientAuthentication),
        (request(psm: 0x81), .none, true, .insufficientEncryption),
        (request(psm: 0x82), .none, false, .unacceptableParameters),
    ])
    func wholeRequestRefusals(packet: LESignalingPacket, level: SMPSecurityLevel, hasBondKey: Bool, expected: L2CAPCreditBasedResult) throws {
        var table = L2CAPChannelTable()
        let response = try Self.response(Self.receive(&table, packet, level: level, hasBondKey: hasBondKey))
        let asked = try CreditBasedConnectionRequest(data: packet.data).sourceCIDs.count
        #expect(response.result == expected)
        // A zero CID for each channel asked for (none for more than five), and no parameters.
        #expect(response.destinationCIDs == Array(repeating: L2CAPChannelID(0), count: asked <= 5 ? asked : 0))
        #expect(response.mtu == 0 && response.mps == 0 && response.initialCredits == 0)
        #expect(table.openChannels == 0)
    }

    /// A bad or taken source CID refuses that channel alone: the others open, and the result
    /// says which kind of refusal there was.
    @Test func aBadSourceCIDRefusesItsChannelOnly() throws {
        var table = L2CAPChannelTable()
        _ = try Self.receive(&table, Self.request(cids: [0x0050]))
        let invalid = try Self.receive(&table, Self.request(cids: [0x0051, 0x0004]))
        #expect(try Self.response(invalid).result == .invalidSourceCID)
        #expect(try Self.response(invalid).destinationCIDs == Self.cids([0x41, 0]))
        let taken = try Self.receive(&table, Self.request(cids: [0x0050, 0x0052]))
        #expect(try Self.response(taken).result == .sourceCIDAlreadyAllocated)
        #expect(try Self.response(taken).destinationCIDs == Self.cids([0, 0x42]))
        #expect(table.openChannels == 3)
    }

    @Test func ourRequestOpensWhatThePeerAccepts() throws {
        var table = L2CAPChannelTable()
        let actions = try table.openEnhanced(psm: 0x80, count: 3, parameters: Self.parameters, token: 5)
        guard case .signal(let packet) = actions[0] else { Issue.record("\(actions)"); return }
        #expect(try CreditBasedConnectionRequest(data: packet.data).sourceCIDs == Self.cids([0x40, 0x41, 0x42]))
        #expect(actions[1] == .awaitResponse(identifier: 1))
        // Pending first: the timer starts again and the final answer follows.
        let pending = CreditBasedConnectionResponse(mtu: 0, mps: 0, initialCredits: 0, result: .authenticationPending,
                                                    destinationCIDs: Self.cids([0, 0, 0]))
        #expect(try Self.receive(&table, pending.packet(identifier: 1)) == [.awaitResponse(identifier: 1)])
        // Once only: a peer that keeps saying pending runs into the timer.
        #expect(try Self.receive(&table, pending.packet(identifier: 1)) == [])
        let some = CreditBasedConnectionResponse(mtu: 300, mps: 80, initialCredits: 2, result: .noResources,
                                                 destinationCIDs: Self.cids([0x60, 0, 0x61]))
        #expect(try Self.receive(&table, some.packet(identifier: 1))
                == [.responseReceived(identifier: 1), .opened(Self.cids([0x40, 0x42]), token: 5)])
        #expect(table.channel(L2CAPChannelID(0x42))?.peerMTU == 300)
        #expect(table.channel(L2CAPChannelID(0x41)) == nil)
    }

    @Test func ourRequestRefusedOrAnsweredUnusablyFailsTyped() throws {
        var table = L2CAPChannelTable()
        _ = try table.openEnhanced(psm: 0x80, count: 2, parameters: Self.parameters, token: 1)
        #expect(try Self.receive(&table, CreditBasedConnectionResponse.refusal(.spsmNotSupported, count: 2).packet(identifier: 1))
                == [.responseReceived(identifier: 1), .openFailed(token: 1, .refused(.spsmNotSupported))])
        // Accepted with an MPS below 64: both channels are ended at once.
        _ = try table.openEnhanced(psm: 0x80, count: 2, parameters: Self.parameters, token: 2)
        let small = CreditBasedConnectionResponse(mtu: 300, mps: 23, initialCredits: 2, result: .success, destinationCIDs: Self.cids([0x70, 0x71]))
        let actions = try #require(try Self.receive(&table, small.packet(identifier: 2)))
        #expect(actions.filter { if case .signal = $0 { true } else { false } }.count == 2)
        #expect(actions.last.map { if case .openFailed(token: 2, .invalidParameters) = $0 { true } else { false } } == true)
        func invalid(_ error: any Error) -> Bool { if case .invalidParameters? = error as? L2CAPChannelError { true } else { false } }
        #expect { try table.openEnhanced(psm: 0x80, count: 6, parameters: Self.parameters, token: 3) } throws: { invalid($0) }
        #expect { try table.openEnhanced(psm: 0x80, count: 0, parameters: Self.parameters, token: 3) } throws: { invalid($0) }
        #expect {
            try table.openEnhanced(psm: 0x80, count: 2, parameters: .init(mtu: 63, mps: 64, initialCredits: 1), token: 3)
        } throws: { invalid($0) }
    }

    /// A response this side cannot trust ends whatever the peer opened: another number of CIDs
    /// than asked for, or CIDs under a result that refuses all.
    @Test func anUntrustworthyResponseEndsWhatItOpened() throws {
        func disconnections(_ actions: [Action]) -> [L2CAPDisconnection] {
            actions.compactMap {
                if case .signal(let packet) = $0, packet.code == LESignalingCode.disconnectionRequest.rawValue {
                    try? L2CAPDisconnection(data: packet.data, code: .disconnectionRequest)
                } else { nil }
            }
        }
        var table = L2CAPChannelTable()
        _ = try table.openEnhanced(psm: 0x80, count: 3, parameters: Self.parameters, token: 1)
        let short = CreditBasedConnectionResponse(mtu: 300, mps: 100, initialCredits: 2, result: .success, destinationCIDs: Self.cids([0x70, 0x71]))
        let ended = try #require(try Self.receive(&table, short.packet(identifier: 1)))
        #expect(disconnections(ended) == [L2CAPDisconnection(destinationCID: L2CAPChannelID(0x70), sourceCID: L2CAPChannelID(0x40)),
                                          L2CAPDisconnection(destinationCID: L2CAPChannelID(0x71), sourceCID: L2CAPChannelID(0x41))])
        #expect(ended.last.map { if case .openFailed(token: 1, .invalidParameters) = $0 { true } else { false } } == true)

        _ = try table.openEnhanced(psm: 0x80, count: 2, parameters: Self.parameters, token: 2)
        let refusedAll = CreditBasedConnectionResponse(mtu: 300, mps: 100, initialCredits: 2, result: .spsmNotSupported,
                                                       destinationCIDs: Self.cids([0x72, 0]))
        let refused = try #require(try Self.receive(&table, refusedAll.packet(identifier: 4)))
        #expect(disconnections(refused).map(\.destinationCID) == [L2CAPChannelID(0x72)])
        #expect(table.openChannels == 3)  // each waits for its Disconnection Response
    }

    /// The peer raises its MTU and MPS on its channels: what goes out uses them; a request that
    /// would shrink the MTU, or the MPS of two channels, or name a channel that is not an
    /// enhanced one, changes nothing.
    @Test func thePeersReconfigurationIsCheckedThenApplied() throws {
        var table = L2CAPChannelTable()
        _ = try Self.receive(&table, Self.request(cids: [0x50, 0x51]))
        _ = try table.received(LECreditBasedConnectionRequest(spsm: 0x80, sourceCID: L2CAPChannelID(0x52), mtu: 256, mps: 64,
                                                              initialCredits: 3).packet(identifier: 8),
                               listeners: Self.listeners, level: .none, hasBondKey: false)
        func reconfigure(_ mtu: UInt16, _ mps: UInt16, _ cids: [UInt16]) throws -> [Action]? {
            try Self.receive(&table, CreditBasedReconfigureRequest(mtu: mtu, mps: mps, destinationCIDs: Self.cids(cids)).packet(identifier: 9))
        }
        func answer(_ result: CreditBasedReconfigureResult) -> Action { .signal(result.packet(identifier: 9)) }
        #expect(try reconfigure(200, 64, [0x50]) == [answer(.mtuReduced)])
        #expect(try reconfigure(256, 63, [0x50]) == [answer(.unacceptableParameters)])
        #expect(try reconfigure(300, 64, [0x50, 0x77]) == [answer(.invalidDestinationCID)])
        #expect(try reconfigure(300, 64, [0x52]) == [answer(.invalidDestinationCID)])
        #expect(table.channel(L2CAPChannelID(0x40))?.peerMTU == 256)
        #expect(try reconfigure(1000, 200, [0x50, 0x51])
                == [.reconfigured(L2CAPChannelID(0x40), peerMTU: 1000), .reconfigured(L2CAPChannelID(0x41), peerMTU: 1000), answer(.success)])
        // 900 bytes in K-frames of 200: three go on the peer's 3 credits.
        let sent = try table.send(Array(repeating: 1, count: 900), on: L2CAPChannelID(0x41))
        #expect(sent.count == 3 && sent.first == .kFrame(to: L2CAPChannelID(0x51), [0x84, 0x03] + Array(repeating: 1, count: 198)))
        // The MPS may shrink on one channel at a time only.
        #expect(try reconfigure(1000, 100, [0x50, 0x51]) == [answer(.mpsReducedOnSeveralChannels)])
        #expect(try reconfigure(1000, 100, [0x50]) == [.reconfigured(L2CAPChannelID(0x40), peerMTU: 1000), answer(.success)])
        #expect(table.channel(L2CAPChannelID(0x40))?.peerMPS == 100)
    }
}
