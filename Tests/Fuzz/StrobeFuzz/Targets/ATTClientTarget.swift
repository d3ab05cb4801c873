import StrobeHCI
import StrobeHost

extension FuzzTarget {
    /// What a GATT client receives: each PDU decoded whole and as a view, then the sequence
    /// through a client's bearer (notifications and indications to handlers, unexpected responses,
    /// Exchange MTU from the peer).
    static let attClient = FuzzTarget(
        name: "att-client", summary: "ATT PDUs as a client receives them (decoders and the bearer)",
        run: { input in
            let bearer = ATTBearer(channel: ATTChannelSink())
            let handler = ATTValueClosureHandler { value, _, _, _ in _ = value.count }
            bearer.setValueHandler(handler, forHandle: AttributeHandle(rawValue: 0x0003))
            bearer.setDefaultValueHandler(handler)
            PacketSequence.forEach(input) { pdu in
                if let first = pdu.first, let type = Self.attPDUTypes.first(where: { $0.opcode.rawValue == first }) {
                    _ = try? type.init(pdu: pdu)
                }
                _ = try? ATTPDUView(pdu)
                bearer.receive(pdu, at: HostTime(nanoseconds: 0))
            }
            bearer.close(.local)
        },
        seeds: { capture in CaptureRecords.attRuns(of: capture) })
}

extension FuzzTarget {
    /// Every ATT PDU codec, found by opcode.
    static let attPDUTypes: [any ATTPDU.Type] = [
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
}
