import StrobeHCI
import StrobeHost

/// L2CAP reassembly of a capture's ACL data: one reassembler per connection handle and direction,
/// as a capture interleaves every link both ways. PDUs of any channel may be large, so each takes
/// up to the L2CAP length field's limit.
struct CaptureReassemblers {
    private struct Key: Hashable {
        var handle: ConnectionHandle
        var direction: BtsnoopDirection?
    }

    private var reassemblers: [Key: L2CAPReassembler] = [:]

    mutating func reassembler(handle: ConnectionHandle, direction: BtsnoopDirection?) -> L2CAPReassembler {
        let key = Key(handle: handle, direction: direction)
        if let existing = reassemblers[key] { return existing }
        let made = L2CAPReassembler(connectionHandle: handle, maximumPayloadLength: L2CAPReassembler.maximumPayloadLengthLimit)
        reassemblers[key] = made
        return made
    }
}
