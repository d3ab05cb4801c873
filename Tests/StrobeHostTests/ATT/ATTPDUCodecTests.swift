import StrobeHCI
import Testing
import StrobeHost

@Suite struct ATTPDUCodecTests {
    @Test func requestsEncodeAsTheSpecLaysThemOut() {
        #expect(ATTExchangeMTURequest(clientRxMTU: 517).encoded() == [0x02, 0x05, 0x02])
        #expect(ATTFindInformationRequest(startingHandle: 0x0010, endingHandle: 0xFFFF).encoded() == [0x04, 0x10, 0x00, 0xFF, 0xFF])
        #expect(ATTFindByTypeValueRequest(startingHandle: 1, endingHandle: 0xFFFF, attributeType: 0x2800, attributeValue: [0x0F, 0x18]).encoded()
            == [0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x0F, 0x18])
        #expect(ATTReadByTypeRequest(startingHandle: 1, endingHandle: 5, attributeType: .characteristic).encoded()
            == [0x08, 0x01, 0x00, 0x05, 0x00, 0x03, 0x28])
        #expect(ATTReadRequest(handle: 0x0203).encoded() == [0x0A, 0x03, 0x02])
        #expect(ATTReadBlobRequest(handle: 3, offset: 22).encoded() == [0x0C, 0x03, 0x00, 0x16, 0x00])
        #expect(ATTReadMultipleRequest(handles: [3, 5]).encoded() == [0x0E, 0x03, 0x00, 0x05, 0x00])
        #expect(ATTReadByGroupTypeRequest(startingHandle: 1, endingHandle: 0xFFFF, attributeGroupType: .primaryService).encoded()
            == [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28])
        #expect(ATTWriteRequest(handle: 9, value: [1, 0]).encoded() == [0x12, 0x09, 0x00, 0x01, 0x00])
        #expect(ATTWriteCommand(handle: 9, value: [7]).encoded() == [0x52, 0x09, 0x00, 0x07])
        #expect(ATTPrepareWriteRequest(handle: 9, offset: 18, value: [0xAA]).encoded() == [0x16, 0x09, 0x00, 0x12, 0x00, 0xAA])
        #expect(ATTExecuteWriteRequest(flags: .cancel).encoded() == [0x18, 0x00])
        #expect(ATTExecuteWriteRequest(flags: .write).encoded() == [0x18, 0x01])
        #expect(ATTHandleValueConfirmation().encoded() == [0x1E])
        #expect(ATTErrorResponse(requestOpcode: .readRequest, handle: 0x0102, error: .readNotPermitted).encoded() == [0x01, 0x0A, 0x02, 0x01, 0x02])
    }

    @Test func responsesDecode() throws {
        let error = try ATTErrorResponse(pdu: [0x01, 0x10, 0x20, 0x00, 0x0A])
        #expect(error == ATTErrorResponse(requestOpcode: .readByGroupTypeRequest, handle: 0x20, error: .attributeNotFound))
        #expect(try ATTExchangeMTUResponse(pdu: [0x03, 0xF7, 0x00]).serverRxMTU == 247)

        let info = try ATTFindInformationResponse(pdu: [0x05, 0x01, 0x03, 0x00, 0x02, 0x29, 0x04, 0x00, 0x01, 0x29])
        #expect(info.entries == [ATTHandleUUID(handle: 3, uuid: .clientCharacteristicConfiguration),
                                 ATTHandleUUID(handle: 4, uuid: .characteristicUserDescription)])
        let wideUUID = BluetoothUUID(value: UInt128(0x6E40_0001_B5A3_F393) << 64 | UInt128(0xE0A9_E50E_24DC_CA9E))
        let wide = try ATTFindInformationResponse(pdu: [0x05, 0x02, 0x07, 0x00] + wideUUID.attBytes)
        #expect(wide.entries == [ATTHandleUUID(handle: 7, uuid: wideUUID)])

        let byType = try ATTReadByTypeResponse(pdu: [0x09, 0x07, 0x02, 0x00, 0x12, 0x03, 0x00, 0x19, 0x2A, 0x04, 0x00, 0x0A, 0x05, 0x00, 0x00, 0x2A])
        #expect(byType.entries == [ATTHandleValue(handle: 2, value: [0x12, 0x03, 0x00, 0x19, 0x2A]),
                                   ATTHandleValue(handle: 4, value: [0x0A, 0x05, 0x00, 0x00, 0x2A])])

        let groups = try ATTReadByGroupTypeResponse(pdu: [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18, 0x06, 0x00, 0x09, 0x00, 0x01, 0x18])
        #expect(groups.entries == [ATTGroupData(handle: 1, endGroupHandle: 5, value: [0x00, 0x18]),
                                   ATTGroupData(handle: 6, endGroupHandle: 9, value: [0x01, 0x18])])

        let found = try ATTFindByTypeValueResponse(pdu: [0x07, 0x10, 0x00, 0x1F, 0x00])
        #expect(found.handles == [ATTHandlesInformation(foundAttributeHandle: 0x10, groupEndHandle: 0x1F)])
        #expect(try ATTPrepareWriteResponse(pdu: [0x17, 0x09, 0x00, 0x12, 0x00, 0xAA, 0xBB])
            == ATTPrepareWriteResponse(handle: 9, offset: 18, value: [0xAA, 0xBB]))
        #expect(try ATTReadBlobResponse(pdu: [0x0D]).value == [])
        #expect(try ATTWriteResponse(pdu: [0x13]) == ATTWriteResponse())
    }

    @Test func everyCodecRoundTrips() throws {
        func roundTrip<P: ATTPDU>(_ pdu: P) throws { #expect(try P(pdu: pdu.encoded()) == pdu) }
        try roundTrip(ATTFindByTypeValueRequest(startingHandle: 1, endingHandle: 9, attributeType: 0x2800, attributeValue: [1, 2]))
        try roundTrip(ATTReadByTypeRequest(startingHandle: 1, endingHandle: 9, attributeType: BluetoothUUID(value: UInt128(1) << 64 | UInt128(2))))
        try roundTrip(ATTReadMultipleRequest(handles: [1, 2, 3]))
        try roundTrip(ATTReadMultipleResponse(values: [1, 2, 3]))
        try roundTrip(ATTPrepareWriteRequest(handle: 4, offset: 5, value: [6]))
        try roundTrip(ATTExecuteWriteResponse())
        try roundTrip(ATTHandleValueNotification(handle: 3, value: [9, 9]))
        try roundTrip(ATTHandleValueIndication(handle: 3, value: []))
        try roundTrip(ATTFindInformationResponse(entries: [ATTHandleUUID(handle: 1, uuid: BluetoothUUID(value: UInt128(3) << 64 | UInt128(4)))]))
    }

    @Test func readByTypeResponseRejectsHostileLengths() {
        let op = ATTOpcode.readByTypeResponse
        // No length byte at all.
        #expect(throws: ATTDecodingError.truncated(op, needed: 2, got: 1)) { try ATTReadByTypeResponse(pdu: [0x09]) }
        // A length that cannot hold the handle.
        #expect(throws: ATTDecodingError.malformed(op, reason: "entry length 1 is shorter than its 2 fixed bytes")) {
            try ATTReadByTypeResponse(pdu: [0x09, 0x01, 0x05])
        }
        #expect(throws: ATTDecodingError.malformed(op, reason: "entry length 0 is shorter than its 2 fixed bytes")) {
            try ATTReadByTypeResponse(pdu: [0x09, 0x00])
        }
        // A length byte promising more than the PDU carries.
        #expect(throws: ATTDecodingError.truncated(op, needed: 257, got: 5)) {
            try ATTReadByTypeResponse(pdu: [0x09, 0xFF, 0x01, 0x00, 0x02])
        }
        // A length byte with no entries following.
        #expect(throws: ATTDecodingError.truncated(op, needed: 6, got: 2)) { try ATTReadByTypeResponse(pdu: [0x09, 0x04]) }
        // Entries that do not divide the data evenly.
        #expect(throws: ATTDecodingError.malformed(op, reason: "7 bytes of data is not a multiple of entry length 4")) {
            try ATTReadByTypeResponse(pdu: [0x09, 0x04, 1, 0, 2, 3, 4, 0, 5])
        }
    }

    @Test func readByGroupTypeResponseRejectsHostileLengths() {
        let op = ATTOpcode.readByGroupTypeResponse
        #expect(throws: ATTDecodingError.malformed(op, reason: "entry length 3 is shorter than its 4 fixed bytes")) {
            try ATTReadByGroupTypeResponse(pdu: [0x11, 0x03, 1, 0, 2])
        }
        #expect(throws: ATTDecodingError.malformed(op, reason: "10 bytes of data is not a multiple of entry length 6")) {
            try ATTReadByGroupTypeResponse(pdu: [0x11, 0x06, 1, 0, 5, 0, 0, 0x18, 6, 0, 9, 0])
        }
        #expect(throws: ATTDecodingError.truncated(op, needed: 22, got: 8)) {
            try ATTReadByGroupTypeResponse(pdu: [0x11, 0x14, 1, 0, 5, 0, 0, 0x18])
        }
    }

    @Test func findResponsesRejectHostileLengths() {
        #expect(throws: ATTDecodingError.malformed(.findInformationResponse, reason: "unknown format 0x3")) {
            try ATTFindInformationResponse(pdu: [0x05, 0x03, 1, 0, 2, 0x29])
        }
        #expect(throws: ATTDecodingError.malformed(.findInformationResponse, reason: "5 bytes of information data is not a multiple of 4")) {
            try ATTFindInformationResponse(pdu: [0x05, 0x01, 1, 0, 2, 0x29, 9])
        }
        #expect(throws: ATTDecodingError.truncated(.findInformationResponse, needed: 20, got: 6)) {
            try ATTFindInformationResponse(pdu: [0x05, 0x02, 1, 0, 2, 0x29])
        }
        #expect(throws: ATTDecodingError.truncated(.findInformationResponse, needed: 2, got: 1)) {
            try ATTFindInformationResponse(pdu: [0x05])
        }
        #expect(throws: ATTDecodingError.malformed(.findByTypeValueResponse, reason: "6 bytes of handles information is not a multiple of 4")) {
            try ATTFindByTypeValueResponse(pdu: [0x07, 1, 0, 5, 0, 6, 0])
        }
        #expect(throws: ATTDecodingError.truncated(.findByTypeValueResponse, needed: 5, got: 1)) {
            try ATTFindByTypeValueResponse(pdu: [0x07])
        }
    }

    @Test func fixedLengthPDUsRejectShortAndLongInput() {
        #expect(throws: ATTDecodingError.truncated(.errorResponse, needed: 5, got: 4)) { try ATTErrorResponse(pdu: [0x01, 0x0A, 0x01, 0x00]) }
        #expect(throws: ATTDecodingError.malformed(.errorResponse, reason: "1 unexpected trailing bytes")) {
            try ATTErrorResponse(pdu: [0x01, 0x0A, 0x01, 0x00, 0x0A, 0x00])
        }
        #expect(throws: ATTDecodingError.truncated(.exchangeMTUResponse, needed: 3, got: 2)) { try ATTExchangeMTUResponse(pdu: [0x03, 0x17]) }
        #expect(throws: ATTDecodingError.malformed(.writeResponse, reason: "1 unexpected trailing bytes")) { try ATTWriteResponse(pdu: [0x13, 0x00]) }
        #expect(throws: ATTDecodingError.truncated(.prepareWriteResponse, needed: 5, got: 4)) { try ATTPrepareWriteResponse(pdu: [0x17, 1, 0, 0]) }
        #expect(throws: ATTDecodingError.malformed(.readMultipleRequest, reason: "5 bytes of handles is odd")) {
            try ATTReadMultipleRequest(pdu: [0x0E, 1, 0, 2, 0, 3])
        }
        #expect(throws: ATTDecodingError.malformed(.readByTypeRequest, reason: "attribute type of 3 bytes (2 or 16 expected)")) {
            try ATTReadByTypeRequest(pdu: [0x08, 1, 0, 2, 0, 1, 2, 3])
        }
        #expect(throws: ATTDecodingError.empty) { try ATTReadResponse(pdu: []) }
        #expect(throws: ATTDecodingError.malformed(.readResponse, reason: "opcode is Read Blob Response (0x0D)")) {
            try ATTReadResponse(pdu: [0x0D, 1])
        }
    }

    @Test func uuidsTakeTheirShortFormInsideTheBaseUUID() throws {
        let battery = BluetoothUUID(0x180F)
        let spelledOut = BluetoothUUID("0000180F-0000-1000-8000-00805F9B34FB")
        #expect(spelledOut == battery)
        #expect(spelledOut.uuid16 == 0x180F)
        #expect(spelledOut.attBytes == [0x0F, 0x18])
        #expect(battery.description == "180F")
        let long = try #require(BluetoothUUID(attBytes: [0xFB, 0x34, 0x9B, 0x5F, 0x80, 0x00, 0x00, 0x80, 0x00, 0x10, 0x00, 0x00, 0x0F, 0x18, 0x00, 0x00]))
        #expect(long == battery)

        let nordic = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        #expect(nordic.uuid16 == nil)
        #expect(nordic.description == "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        #expect(nordic.attBytes == [0x9E, 0xCA, 0xDC, 0x24, 0x0E, 0xE5, 0xA9, 0xE0, 0x93, 0xF3, 0xA3, 0xB5, 0x01, 0x00, 0x40, 0x6E])
        #expect(BluetoothUUID(attBytes: nordic.attBytes) == nordic)
        // A 32-bit alias inside the base has no 16-bit form, and ATT has no 32-bit one.
        let alias32 = BluetoothUUID("1234180F-0000-1000-8000-00805F9B34FB")
        #expect(alias32.uuid16 == nil && alias32.uuid32 == 0x1234_180F)
        #expect(alias32.attBytes.count == 16 && alias32.attEncodedCount == 16)
        #expect(BluetoothUUID(attBytes: alias32.attBytes) == alias32)
        #expect(BluetoothUUID(attBytes: [1, 2, 3]) == nil)
        #expect(BluetoothUUID(attBytes: [0x78, 0x56, 0x34, 0x12]) == nil)
    }
}
