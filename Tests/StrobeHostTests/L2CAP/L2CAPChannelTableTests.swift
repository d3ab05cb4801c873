import StrobeSecurity
import Testing

import StrobeHost

/// One link's credit-based channels driven by scripted signalling: opening both ways, every
/// refusal this side gives, the peer's refusals and silence, credits, and closing.
@Suite struct L2CAPChannelTableTests {
    typealias Action = L2CAPChannelTable.Action
    static let parameters = L2CAPChannelParameters(mtu: 512, mps: 100, initialCredits: 8)
    static let listeners: [UInt16: L2CAPChannelTable.Listener] = [
        0x80: .init(parameters: parameters, security: .none),
        0x81: .init(parameters: parameters, security: .unauthenticated),
    ]

    static func receive(_ table: inout L2CAPChannelTable, _ packet: LESignalingPacket, level: SMPSecurityLevel = .none,
                        hasBondKey: Bool = false) throws -> [Action]? {
        try table.received(packet, listeners: listeners, level: level, hasBondKey: hasBondKey)
    }

    static func request(psm: UInt16 = 0x80, cid: UInt16 = 0x0040, mtu: UInt16 = 256, mps: UInt16 = 50) -> LESignalingPacket {
        LECreditBasedConnectionRequest(spsm: psm, sourceCID: L2CAPChannelID(cid), mtu: mtu, mps: mps, initialCredits: 3)
            .packet(identifier: 7)
    }

    static func result(_ actions: [Action]?) throws -> L2CAPCreditBasedResult {
        guard case .signal(let packet)? = actions?.first else { throw L2CAPChannelError.notOpen }
        return try LECreditBasedConnectionResponse(data: packet.data).result
    }

    @Test func thePeersRequestIsAcceptedOnAListenedPSM() throws {
        var table = L2CAPChannelTable()
        let actions = try Self.receive(&table, Self.request())
        let response = LECreditBasedConnectionResponse(destinationCID: L2CAPChannelID(0x0040), mtu: 512, mps: 100, initialCredits: 8,
                                                       result: .success)
        #expect(actions == [.signal(response.packet(identifier: 7)), .accepted(L2CAPChannelID(0x0040), psm: 0x80)])
        // An SDU goes out on the peer's CID within its MPS.
        let sent = try table.send(Array(repeating: 1, count: 60), on: L2CAPChannelID(0x0040))
        #expect(sent == [.kFrame(to: L2CAPChannelID(0x0040), [60, 0] + Array(repeating: 1, count: 48)),
                         .kFrame(to: L2CAPChannelID(0x0040), Array(repeating: 1, count: 12)), .sduSent(L2CAPChannelID(0x0040))])
    }

    @Test(arguments: [
        (request(psm: 0x90), SMPSecurityLevel.none, false, L2CAPCreditBasedResult.spsmNotSupported),
        (request(psm: 0x0100), .none, false, .spsmNotSupported),
        (request(mtu: 22), .none, false, .unacceptableParameters),
        (request(mps: 65534), .none, false, .unacceptableParameters),
        (request(psm: 0x81), .none, false, .insufficientAuthentication),
        (request(psm: 0x81), .none, true, .insufficientEncryption),
        (request(cid: 0x0004), .none, false, .invalidSourceCID),
        (request(cid: 0x0080), .none, false, .invalidSourceCID),
    ])
    func refusals(packet: LESignalingPacket, level: SMPSecurityLevel, hasBondKey: Bool, expected: L2CAPCreditBasedResult) throws {
        var table = L2CAPChannelTable()
        #expect(try Self.result(Self.receive(&table, packet, level: level, hasBondKey: hasBondKey)) == expected)
        #expect(table.openChannels == 0)
    }

    @Test func anEncryptedLinkOpensASecuredPSM() throws {
        var table = L2CAPChannelTable()
        #expect(try Self.result(Self.receive(&table, Self.request(psm: 0x81), level: .unauthenticated)) == .success)
    }

    @Test func aSourceCIDInUseIsRefused() throws {
        var table = L2CAPChannelTable()
        #expect(try Self.result(Self.receive(&table, Self.request())) == .success)
        #expect(try Self.result(Self.receive(&table, Self.request())) == .sourceCIDAlreadyAllocated)
    }

    @Test func sixtyFiveChannelsDoNotFit() throws {
        var table = L2CAPChannelTable()
        for cid in UInt16(0x40)...0x7F { #expect(try Self.result(Self.receive(&table, Self.request(cid: cid))) == .success) }
        #expect(throws: L2CAPChannelError.noFreeChannelID) { try table.open(psm: 0x80, parameters: Self.parameters, token: 1) }
    }

    @Test func ourRequestOpensTheChannelOrFailsTyped() throws {
        var table = L2CAPChannelTable()
        let actions = try table.open(psm: 0x80, parameters: Self.parameters, token: 42)
        guard case .signal(let packet) = actions[0] else { Issue.record("\(actions)"); return }
        #expect(packet.encoded == [0x14, 0x01, 0x0A, 0x00, 0x80, 0x00, 0x40, 0x00, 0x00, 0x02, 0x64, 0x00, 0x08, 0x00])
        #expect(actions[1] == .awaitResponse(identifier: 1))
        let response = LECreditBasedConnectionResponse(destinationCID: L2CAPChannelID(0x0045), mtu: 100, mps: 23, initialCredits: 1,
                                                       result: .success)
        #expect(try Self.receive(&table, response.packet(identifier: 1))
                == [.responseReceived(identifier: 1), .opened([L2CAPChannelID(0x0040)], token: 42)])

        _ = try table.open(psm: 0x80, parameters: Self.parameters, token: 43)
        #expect(try Self.receive(&table, LECreditBasedConnectionResponse.refusal(.insufficientEncryption).packet(identifier: 2))
                == [.responseReceived(identifier: 2), .openFailed(token: 43, .refused(.insufficientEncryption))])
        _ = try table.open(psm: 0x80, parameters: Self.parameters, token: 44)
        #expect(try Self.receive(&table, LESignalingPacket.commandNotUnderstood(identifier: 3))
                == [.responseReceived(identifier: 3), .openFailed(token: 44, .commandRejected(reason: 0))])
        _ = try table.open(psm: 0x80, parameters: Self.parameters, token: 45)
        #expect(table.responseTimedOut(4, after: .seconds(30)) == [.openFailed(token: 45, .timeout(after: .seconds(30)))])
        // The channel identifiers go round: the next one after those asked for.
        let next = try table.open(psm: 0x80, parameters: Self.parameters, token: 46)
        guard case .signal(let fifth) = next[0] else {
            Issue.record("\(next)")
            return
        }
        #expect(try LECreditBasedConnectionRequest(data: fifth.data).sourceCID == L2CAPChannelID(0x0044))
    }

    @Test func badParametersForOurRequestAreRefusedBeforeSending() {
        var table = L2CAPChannelTable()
        #expect(throws: L2CAPChannelError.self) { try table.open(psm: 0, parameters: Self.parameters, token: 1) }
        #expect(throws: L2CAPChannelError.self) {
            try table.open(psm: 0x80, parameters: .init(mtu: 22, mps: 23, initialCredits: 1), token: 1)
        }
    }

    @Test func creditsFromThePeerReleaseWaitingKFrames() throws {
        var table = L2CAPChannelTable()
        _ = try table.open(psm: 0x80, parameters: Self.parameters, token: 1)
        let response = LECreditBasedConnectionResponse(destinationCID: L2CAPChannelID(0x0050), mtu: 100, mps: 23, initialCredits: 0,
                                                       result: .success)
        _ = try Self.receive(&table, response.packet(identifier: 1))
        #expect(try table.send([9], on: L2CAPChannelID(0x0040)) == [])
        // The indication names the peer's own CID.
        let credit = LEFlowControlCredit(cid: L2CAPChannelID(0x0050), credits: 1).packet(identifier: 9)
        #expect(try Self.receive(&table, credit) == [.kFrame(to: L2CAPChannelID(0x0050), [1, 0, 9]), .sduSent(L2CAPChannelID(0x0040))])
        #expect(try Self.receive(&table, LEFlowControlCredit(cid: L2CAPChannelID(0x0077), credits: 1).packet(identifier: 10)) == [])
    }

    @Test func aViolationDisconnectsTheChannelAndItsCIDWaitsForTheAnswer() throws {
        var table = L2CAPChannelTable()
        _ = try Self.receive(&table, Self.request())
        let frame: [UInt8] = Array(repeating: 0, count: 101)  // above the MPS of 100
        let actions = frame.withUnsafeBytes { table.received(kFrame: $0, on: L2CAPChannelID(0x0040)) }
        let disconnection = L2CAPDisconnection(destinationCID: L2CAPChannelID(0x0040), sourceCID: L2CAPChannelID(0x0040))
        #expect(actions == [.signal(disconnection.request(identifier: 1)), .awaitResponse(identifier: 1),
                            .closed(L2CAPChannelID(0x0040), .kFrameExceedsMPS(length: 101, mps: 100))])
        #expect(table.openChannels == 1)
        #expect(try Self.receive(&table, disconnection.response(identifier: 1)) == [.responseReceived(identifier: 1)])
        #expect(table.openChannels == 0)
    }

    @Test func thePeersDisconnectionIsAnsweredAndAnUnknownOneRejected() throws {
        var table = L2CAPChannelTable()
        _ = try Self.receive(&table, Self.request(cid: 0x0055))
        let request = L2CAPDisconnection(destinationCID: L2CAPChannelID(0x0040), sourceCID: L2CAPChannelID(0x0055))
        #expect(try Self.receive(&table, request.request(identifier: 3))
                == [.signal(request.response(identifier: 3)), .closed(L2CAPChannelID(0x0040), nil)])
        #expect(try Self.receive(&table, request.request(identifier: 4))
                == [.signal(LESignalingPacket(code: 0x01, identifier: 4, data: [0x02, 0x00, 0x40, 0x00, 0x55, 0x00]))])
    }

    /// A response naming a destination CID another channel of the link already has is refused
    /// (its credits would go to that channel), and the link's own waiting request keeps its identifier.
    @Test func aDuplicateDestinationCIDIsDisconnectedAndReservedIdentifiersAreSkipped() throws {
        var table = L2CAPChannelTable()
        _ = try Self.receive(&table, Self.request(cid: 0x0060))  // the peer's 0x0060 is taken
        table.reservedIdentifier = 1
        let actions = try table.open(psm: 0x80, parameters: Self.parameters, token: 7)
        #expect(actions.last == .awaitResponse(identifier: 2))
        let response = LECreditBasedConnectionResponse(destinationCID: L2CAPChannelID(0x0060), mtu: 100, mps: 23, initialCredits: 1,
                                                       result: .success)
        let outcome = try #require(try Self.receive(&table, response.packet(identifier: 2)))
        #expect(outcome.contains { if case .openFailed(token: 7, .invalidParameters) = $0 { true } else { false } })
        #expect(outcome.contains(.signal(L2CAPDisconnection(destinationCID: L2CAPChannelID(0x0060), sourceCID: L2CAPChannelID(0x0041))
            .request(identifier: 3))))
    }

    @Test func theLinksEndEndsEverything() throws {
        var table = L2CAPChannelTable()
        _ = try Self.receive(&table, Self.request())
        _ = try table.open(psm: 0x80, parameters: Self.parameters, token: 9)
        let actions = table.linkClosed()
        #expect(actions.contains(.closed(L2CAPChannelID(0x0040), .linkClosed)))
        #expect(actions.contains(.openFailed(token: 9, .linkClosed)))
        #expect(table.openChannels == 0)
    }
}
