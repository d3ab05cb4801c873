import StrobeHCI

/// A borrowed view of one ATT PDU: its opcode, the single attribute handle when the PDU carries
/// one, and the value bytes that follow it. Enough to route notifications without a copy and to
/// summarise captures; full request and response codecs build on it.
package struct ATTPDUView {
    package let opcode: ATTOpcode
    /// The attribute handle for PDUs whose first parameter is one handle.
    package let handle: AttributeHandle?
    /// Notifications, indications, writes and prepare writes: the attribute value (after the
    /// offset for prepare writes, without the signature for signed writes). Otherwise the parameters.
    package let value: UnsafeRawBufferPointer

    /// Parses the PDU header; fails when the PDU is empty or shorter than its fixed fields.
    package init(_ pdu: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ByteReader(pdu)
        guard let raw = reader.readUInt8() else { throw .empty }
        let opcode = ATTOpcode(rawValue: raw)
        self.opcode = opcode
        guard opcode.carriesOneHandle else {
            handle = nil
            value = reader.readRest()
            return
        }
        guard let handle = reader.readAttributeHandle() else { throw .truncated(opcode, needed: 3, got: pdu.count) }
        self.handle = handle
        switch opcode {
        case .prepareWriteRequest, .prepareWriteResponse:
            guard reader.skip(2) else { throw .truncated(opcode, needed: 5, got: pdu.count) }
            value = reader.readRest()
        case .signedWriteCommand:
            // The 12-byte authentication signature closes the PDU.
            guard reader.remaining >= 12 else { throw .truncated(opcode, needed: 15, got: pdu.count) }
            value = reader.readView(count: reader.remaining - 12)!
        default:
            value = reader.readRest()
        }
    }
}

/// What was wrong with an ATT PDU.
public enum ATTDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The PDU has no bytes, not even an opcode.
    case empty
    /// The PDU is shorter than the fixed fields of its opcode: at least `needed` bytes, `got` received.
    case truncated(ATTOpcode, needed: Int, got: Int)
    /// The PDU's length or contents are inconsistent (e.g. a list length that is not a multiple of
    /// the entry length); `reason` says what.
    case malformed(ATTOpcode, reason: String)

    /// A one-line explanation for logs, e.g. `Write Request (0x12) needs at least 3 bytes, got 2`.
    public var description: String {
        switch self {
        case .empty: "empty ATT PDU"
        case .truncated(let opcode, let needed, let got): "\(opcode) needs at least \(needed) bytes, got \(got)"
        case .malformed(let opcode, let reason): "malformed \(opcode): \(reason)"
        }
    }
}
