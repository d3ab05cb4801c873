import Testing

import StrobeHost

/// The credit-based channels' signalling commands, byte for byte (Core Vol 3, Part A, 4.6, 4.7,
/// 4.22-4.24).
@Suite struct CreditBasedSignalingTests {
    @Test func connectionRequestAndResponse() throws {
        let request = LECreditBasedConnectionRequest(spsm: 0x0080, sourceCID: L2CAPChannelID(0x0040), mtu: 512, mps: 247, initialCredits: 10)
        let packet = request.packet(identifier: 3)
        #expect(packet.encoded == [0x14, 0x03, 0x0A, 0x00, 0x80, 0x00, 0x40, 0x00, 0x00, 0x02, 0xF7, 0x00, 0x0A, 0x00])
        #expect(try LECreditBasedConnectionRequest(data: packet.data) == request)

        let response = LECreditBasedConnectionResponse(destinationCID: L2CAPChannelID(0x0041), mtu: 2048, mps: 2048, initialCredits: 256,
                                                       result: .success)
        #expect(response.packet(identifier: 3).encoded == [0x15, 0x03, 0x0A, 0x00, 0x41, 0x00, 0x00, 0x08, 0x00, 0x08, 0x00, 0x01, 0x00, 0x00])
        #expect(try LECreditBasedConnectionResponse(data: response.packet(identifier: 3).data) == response)
        let refusal = LECreditBasedConnectionResponse.refusal(.insufficientEncryption)
        #expect(refusal.packet(identifier: 4).data == [0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00])
    }

    @Test func creditsAndDisconnection() throws {
        let credits = LEFlowControlCredit(cid: L2CAPChannelID(0x0040), credits: 0xFFFF)
        #expect(credits.packet(identifier: 9).encoded == [0x16, 0x09, 0x04, 0x00, 0x40, 0x00, 0xFF, 0xFF])
        #expect(try LEFlowControlCredit(data: credits.packet(identifier: 9).data) == credits)

        let disconnection = L2CAPDisconnection(destinationCID: L2CAPChannelID(0x0041), sourceCID: L2CAPChannelID(0x0040))
        #expect(disconnection.request(identifier: 5).encoded == [0x06, 0x05, 0x04, 0x00, 0x41, 0x00, 0x40, 0x00])
        #expect(disconnection.response(identifier: 5).encoded == [0x07, 0x05, 0x04, 0x00, 0x41, 0x00, 0x40, 0x00])
        #expect(try L2CAPDisconnection(data: [0x41, 0x00, 0x40, 0x00], code: .disconnectionRequest) == disconnection)
    }

    @Test func wrongLengthsAreTypedErrors() {
        #expect(throws: L2CAPSignalingError.lengthMismatch(code: 0x14, announced: 10, actual: 9)) {
            try LECreditBasedConnectionRequest(data: Array(repeating: 0, count: 9))
        }
        #expect(throws: L2CAPSignalingError.lengthMismatch(code: 0x15, announced: 10, actual: 12)) {
            try LECreditBasedConnectionResponse(data: Array(repeating: 0, count: 12))
        }
        #expect(throws: L2CAPSignalingError.lengthMismatch(code: 0x16, announced: 4, actual: 0)) { try LEFlowControlCredit(data: []) }
        #expect(throws: L2CAPSignalingError.lengthMismatch(code: 0x07, announced: 4, actual: 2)) {
            try L2CAPDisconnection(data: [1, 2], code: .disconnectionResponse)
        }
    }

    @Test func resultsAreNamedOrKeptAsTheyCame() {
        #expect(L2CAPCreditBasedResult.insufficientAuthentication.description == "insufficient authentication (0x0005)")
        #expect(L2CAPCreditBasedResult(rawValue: 0x0003).description == "result 0x0003")
    }
}
