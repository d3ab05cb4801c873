/// A notification on a Nova's response characteristic: an ack of a request or, on V2, a press of
/// the flash's own button. Requests echoed back are not responses and are errors here.
package enum NovaResponse: Sendable, Hashable {
    case ack(requestID: UInt16)
    case trigger(requestID: UInt16, pressed: Bool)

    package init(decoding bytes: UnsafeRawBufferPointer, model: NovaModel) throws(NovaDecodingError) {
        switch model {
        case .v1:
            let frame = try NovaV1Frame(decoding: bytes)
            guard frame.body == .ack else { throw .unexpectedMessage("V1 \(frame.body) on the response characteristic") }
            self = .ack(requestID: UInt16(frame.requestID))
        case .v2:
            let message = try NovaV2Message(decoding: bytes)
            switch message.body {
            case .ack: self = .ack(requestID: message.requestID)
            case .trigger(let pressed): self = .trigger(requestID: message.requestID, pressed: pressed)
            case .ping, .flash, .off:
                throw .unexpectedMessage("V2 \(message.body.command) on the response characteristic")
            }
        }
    }
}
