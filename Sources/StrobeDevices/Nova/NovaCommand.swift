/// What the host asks a Nova to do. Each command is written with response and then waits for
/// the flash's ack (see `NovaCommandQueue`).
package enum NovaCommand: Sendable, Hashable {
    /// Checks that the flash answers.
    case ping
    /// Turns the light off now.
    case off
    /// Turns the light on until OFF arrives or the settings' safety timeout passes.
    case flash(NovaFlashSettings)

    /// The command as it goes on the wire: a light with nothing to show (both banks 0, or a
    /// timeout of 0) becomes OFF, as in the reference SDK.
    package var normalized: NovaCommand {
        if case .flash(let settings) = self, settings.isEffectivelyOff { return .off }
        return self
    }

    /// The request bytes for `model`, normalised first. V1 uses the low 8 bits of `requestID`.
    package func encoded(for model: NovaModel, requestID: UInt16) -> [UInt8] {
        switch model {
        case .v1:
            let id = UInt8(truncatingIfNeeded: requestID)
            let body: NovaV1Frame.Body = switch normalized {
            case .ping: .ping
            case .off: .off
            case .flash(let settings): .light(settings)
            }
            return NovaV1Frame(requestID: id, body: body).encoded()
        case .v2:
            let body: NovaV2Message.Body = switch normalized {
            case .ping: .ping
            case .off: .off
            case .flash(let settings): .flash(settings)
            }
            return NovaV2Message(requestID: requestID, body: body).encoded()
        }
    }
}
