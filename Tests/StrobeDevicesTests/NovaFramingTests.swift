import Testing
import StrobeDevices

@Suite struct NovaV1FramingTests {
    @Test func lightFrameMatchesTheReferenceExample() {
        let frame = NovaV1Frame(
            requestID: 0x4A, body: .light(NovaFlashSettings(warm: 0, cool: 255, timeoutMilliseconds: 1500)))
        #expect(frame.encoded() == ascii("(4A:L,00,FF,05DC)"))
    }

    @Test func pingOffAndAckFrames() {
        #expect(NovaV1Frame(requestID: 0, body: .ping).encoded() == ascii("(00:P)"))
        #expect(NovaV1Frame(requestID: 0xFF, body: .off).encoded() == ascii("(FF:O)"))
        #expect(NovaV1Frame(requestID: 0x0B, body: .ack).encoded() == ascii("(0B:A)"))
    }

    @Test func commandEncodingUsesTheLowByteOfTheRequestID() {
        let command = NovaCommand.flash(NovaFlashSettings(warm: 0x12, cool: 0xAB, timeoutMilliseconds: 0xBEEF))
        #expect(command.encoded(for: .v1, requestID: 0x14A) == ascii("(4A:L,12,AB,BEEF)"))
    }

    @Test(arguments: [
        NovaV1Frame(requestID: 0, body: .ping),
        NovaV1Frame(requestID: 0x7F, body: .off),
        NovaV1Frame(requestID: 0xFF, body: .ack),
        NovaV1Frame(requestID: 0x4A, body: .light(NovaFlashSettings(warm: 1, cool: 254, timeoutMilliseconds: 65535))),
    ])
    func roundTrip(frame: NovaV1Frame) throws {
        #expect(try NovaV1Frame(decoding: frame.encoded()) == frame)
    }

    @Test func decodingAcceptsLowerCaseHex() throws {
        let frame = try NovaV1Frame(decoding: ascii("(4a:L,0f,ff,05dc)"))
        #expect(frame == NovaV1Frame(
            requestID: 0x4A, body: .light(NovaFlashSettings(warm: 15, cool: 255, timeoutMilliseconds: 1500))))
    }

    @Test(arguments: [
        ("", NovaDecodingError.empty),
        ("(4A:A", .missingFraming(length: 5)),
        ("4A:A)", .missingFraming(length: 5)),
        ("(4A:)", .missingFraming(length: 5)),
        ("(4A-A)", .missingFraming(length: 6)),
        ("(4A:A)\n", .missingFraming(length: 7)),
        ("(4G:A)", .invalidHex(field: "request id")),
        ("(4A:X)", .unknownBody(length: 1)),
        ("(4A:AA)", .unknownBody(length: 2)),
        ("(4A:L,00,FF,05D)", .unknownBody(length: 11)),
        ("(4A:L;00,FF,05DC)", .unknownBody(length: 12)),
        ("(4A:L,0G,FF,05DC)", .invalidHex(field: "warm PWM")),
        ("(4A:L,00,F ,05DC)", .invalidHex(field: "cool PWM")),
        ("(4A:L,00,FF,05DX)", .invalidHex(field: "timeout")),
    ])
    func malformedFramesAreTypedErrors(text: String, expected: NovaDecodingError) {
        #expect(thrownError { () throws(NovaDecodingError) in try NovaV1Frame(decoding: ascii(text)) } == expected)
    }

    @Test func responsesMustBeAcks() throws {
        #expect(try withBuffer(ascii("(09:A)")) { (raw) throws(NovaDecodingError) in
            try NovaResponse(decoding: raw, model: .v1)
        } == .ack(requestID: 9))
        let error = thrownError { () throws(NovaDecodingError) in
            try withBuffer(ascii("(09:P)")) { (raw) throws(NovaDecodingError) in try NovaResponse(decoding: raw, model: .v1) }
        }
        guard case .unexpectedMessage = error else {
            Issue.record("expected unexpectedMessage, got \(String(describing: error))")
            return
        }
    }
}

@Suite struct NovaV2FramingTests {
    @Test func exactBytesOfEveryMessage() {
        #expect(NovaV2Message(requestID: 0x0102, body: .ack).encoded() == [0, 0, 0x01, 0x02])
        #expect(NovaV2Message(requestID: 7, body: .ping).encoded() == [1, 0, 0, 7])
        #expect(NovaV2Message(
            requestID: 0x1234, body: .flash(NovaFlashSettings(warm: 0, cool: 255, timeoutMilliseconds: 1500))
        ).encoded() == [2, 0, 0x12, 0x34, 0x05, 0xDC, 0x00, 0xFF])
        #expect(NovaV2Message(requestID: 0xFFFF, body: .off).encoded() == [3, 0, 0xFF, 0xFF])
        #expect(NovaV2Message(requestID: 9, body: .trigger(pressed: true)).encoded() == [4, 0, 0, 9, 1])
        #expect(NovaV2Message(requestID: 9, body: .trigger(pressed: false)).encoded() == [4, 0, 0, 9, 0])
    }

    @Test func commandEncoding() {
        #expect(NovaCommand.ping.encoded(for: .v2, requestID: 0xABCD) == [1, 0, 0xAB, 0xCD])
        #expect(NovaCommand.flash(.warm).encoded(for: .v2, requestID: 1) == [2, 0, 0, 1, 0x01, 0xF4, 255, 20])
    }

    @Test(arguments: [
        NovaV2Message(requestID: 0, body: .ack),
        NovaV2Message(requestID: 1, body: .ping),
        NovaV2Message(requestID: 0xFFFF, body: .flash(NovaFlashSettings(warm: 9, cool: 8, timeoutMilliseconds: 7))),
        NovaV2Message(requestID: 300, body: .off),
        NovaV2Message(requestID: 2, body: .trigger(pressed: true)),
    ])
    func roundTrip(message: NovaV2Message) throws {
        #expect(try NovaV2Message(decoding: message.encoded()) == message)
    }

    @Test func anyNonZeroTriggerByteIsPressed() throws {
        #expect(try NovaV2Message(decoding: [4, 0, 0, 1, 0x80]).body == .trigger(pressed: true))
    }

    @Test(arguments: [
        ([UInt8](), NovaDecodingError.empty),
        ([5, 0, 0, 0], .unknownCommand(5)),
        ([0xFF], .unknownCommand(0xFF)),
        ([0, 0, 0], .unexpectedLength(message: "V2 ack", expected: 4, actual: 3)),
        ([0, 0, 0, 0, 0], .unexpectedLength(message: "V2 ack", expected: 4, actual: 5)),
        ([2, 0, 0, 1, 0, 0, 0], .unexpectedLength(message: "V2 flash", expected: 8, actual: 7)),
        ([4, 0, 0, 1], .unexpectedLength(message: "V2 trigger", expected: 5, actual: 4)),
        ([1, 3, 0, 1], .nonZeroPadding(3)),
    ])
    func malformedMessagesAreTypedErrors(bytes: [UInt8], expected: NovaDecodingError) {
        #expect(thrownError { () throws(NovaDecodingError) in try NovaV2Message(decoding: bytes) } == expected)
    }

    @Test func responsesAreAcksOrTriggers() throws {
        func response(_ bytes: [UInt8]) throws(NovaDecodingError) -> NovaResponse {
            try withBuffer(bytes) { (raw) throws(NovaDecodingError) in try NovaResponse(decoding: raw, model: .v2) }
        }
        #expect(try response([0, 0, 1, 2]) == .ack(requestID: 0x0102))
        #expect(try response([4, 0, 0, 3, 1]) == .trigger(requestID: 3, pressed: true))
        #expect(thrownError { () throws(NovaDecodingError) in try response([3, 0, 0, 1]) }
            == .unexpectedMessage("V2 off on the response characteristic"))
    }

    @Test func flashDefaultsBytes() throws {
        let defaults = NovaFlashDefaults(
            regular: NovaFlashSettings(warm: 0xAA, cool: 0xBB, timeoutMilliseconds: 0x0102),
            preflash: NovaFlashSettings(warm: 0x10, cool: 0x20, timeoutMilliseconds: 0x0304))
        let bytes: [UInt8] = [0x01, 0x02, 0xAA, 0xBB, 0x03, 0x04, 0x10, 0x20]
        #expect(defaults.encoded() == bytes)
        #expect(try withBuffer(bytes) { (raw) throws(NovaDecodingError) in try NovaFlashDefaults(decoding: raw) } == defaults)
    }

    @Test(arguments: [7, 9, 0])
    func flashDefaultsOfAnotherLengthAreMalformed(length: Int) {
        let error = thrownError { () throws(NovaDecodingError) in
            try withBuffer([UInt8](repeating: 0, count: length)) { (raw) throws(NovaDecodingError) in
                try NovaFlashDefaults(decoding: raw)
            }
        }
        #expect(error == .unexpectedLength(message: "flash defaults", expected: 8, actual: length))
    }

    @Test func countersAreBigEndianWords() throws {
        let bytes: [UInt8] = [0, 0, 0, 1, 0xDE, 0xAD, 0xBE, 0xEF]
        let counters = try withBuffer(bytes) { (raw) throws(NovaDecodingError) in try NovaCounters(decoding: raw) }
        #expect(counters.values == [1, 0xDEAD_BEEF])
        #expect(counters.encoded() == bytes)
        #expect(try withBuffer([]) { (raw) throws(NovaDecodingError) in try NovaCounters(decoding: raw) }.values == [])
    }

    @Test(arguments: [1, 3, 5, 7])
    func countersOfAnotherLengthAreMalformed(length: Int) {
        let error = thrownError { () throws(NovaDecodingError) in
            try withBuffer([UInt8](repeating: 1, count: length)) { (raw) throws(NovaDecodingError) in
                try NovaCounters(decoding: raw)
            }
        }
        #expect(error == .notWholeItems(message: "counters", itemSize: 4, actual: length))
    }
}
