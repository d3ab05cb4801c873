/// Every ATT PDU codec the stack has, found by opcode: for decoders that meet any PDU (captures).
package enum ATTPDUCodecs {
    package static let all: [any ATTPDU.Type] = [
        ATTErrorResponse.self, ATTExchangeMTURequest.self, ATTExchangeMTUResponse.self,
        ATTFindInformationRequest.self, ATTFindInformationResponse.self,
        ATTFindByTypeValueRequest.self, ATTFindByTypeValueResponse.self,
        ATTReadByTypeRequest.self, ATTReadByTypeResponse.self, ATTReadRequest.self, ATTReadResponse.self,
        ATTReadBlobRequest.self, ATTReadBlobResponse.self, ATTReadMultipleRequest.self, ATTReadMultipleResponse.self,
        ATTReadByGroupTypeRequest.self, ATTReadByGroupTypeResponse.self, ATTWriteRequest.self, ATTWriteResponse.self,
        ATTWriteCommand.self, ATTPrepareWriteRequest.self, ATTPrepareWriteResponse.self,
        ATTExecuteWriteRequest.self, ATTExecuteWriteResponse.self, ATTHandleValueNotification.self,
        ATTHandleValueIndication.self, ATTHandleValueConfirmation.self,
    ]

    /// The codec for a PDU's first byte.
    package static func codec(for opcode: UInt8) -> (any ATTPDU.Type)? { all.first { $0.opcode.rawValue == opcode } }
}
