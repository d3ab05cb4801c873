import Testing
import StrobeHost

@Suite struct ATTPDUViewTests {
    private func view(_ bytes: [UInt8]) throws -> (ATTOpcode, AttributeHandle?, [UInt8]) {
        try bytes.withUnsafeBytes { raw in
            let pdu = try ATTPDUView(raw)
            return (pdu.opcode, pdu.handle, Array(pdu.value))
        }
    }

    @Test func notificationCarriesHandleAndValue() throws {
        let (opcode, handle, value) = try view([0x1B, 0x14, 0x00, 0x01, 0x02, 0x03])
        #expect(opcode == .handleValueNotification)
        #expect(handle == 0x0014)
        #expect(value == [1, 2, 3])
    }

    @Test func prepareWriteSkipsTheOffset() throws {
        let (opcode, handle, value) = try view([0x16, 0x2A, 0x00, 0x6E, 0x00, 0xAA, 0xBB])
        #expect(opcode == .prepareWriteRequest)
        #expect(handle == 0x002A)
        #expect(value == [0xAA, 0xBB])
    }

    @Test func signedWriteDropsTheSignature() throws {
        let (_, handle, value) = try view([0xD2, 0x03, 0x00, 0x42] + [UInt8](repeating: 0xEE, count: 12))
        #expect(handle == 3)
        #expect(value == [0x42])
    }

    @Test func mtuExchangeHasNoHandle() throws {
        let (opcode, handle, value) = try view([0x02, 0xF7, 0x00])
        #expect(opcode == .exchangeMTURequest)
        #expect(opcode.response == .exchangeMTUResponse)
        #expect(handle == nil)
        #expect(value == [0xF7, 0x00])
    }

    @Test func shortPDUsAreTypedErrors() {
        #expect(throws: ATTDecodingError.empty) { try view([]) }
        #expect(throws: ATTDecodingError.truncated(.readRequest, needed: 3, got: 2)) { try view([0x0A, 0x01]) }
        #expect(throws: ATTDecodingError.truncated(.prepareWriteRequest, needed: 5, got: 4)) { try view([0x16, 1, 0, 0]) }
        #expect(throws: ATTDecodingError.truncated(.signedWriteCommand, needed: 15, got: 14)) {
            try view([0xD2, 1, 0] + [UInt8](repeating: 0, count: 11))
        }
    }

    @Test func opcodeClassesFollowTheSpec() {
        #expect(ATTOpcode.writeCommand.isCommand)
        #expect(!ATTOpcode.writeRequest.isCommand)
        #expect(ATTOpcode.signedWriteCommand.hasSignature)
        #expect(ATTOpcode.readBlobRequest.isRequest)
        #expect(!ATTOpcode.handleValueIndication.isRequest)
        #expect(ATTErrorCode(rawValue: 0x0A).description == "Attribute Not Found (0x0A)")
        #expect(ATTErrorCode(rawValue: 0x85).isApplicationError)
    }
}
