import StrobeHCI

/// One ATT PDU type with its codec: the opcode byte, then parameters (Core Specification Vol 3,
/// Part F, 3.3). Decoding checks every length and names the PDU in its error; encoding is for
/// what we send (and for a server).
package protocol ATTPDU: Sendable, Equatable {
    static var opcode: ATTOpcode { get }
    /// Decodes the parameters that follow the opcode byte.
    init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError)
    /// Appends the parameters (not the opcode).
    func encodeParameters(into writer: inout ByteWriter)
}

/// A PDU that expects exactly one response; the bearer keeps one outstanding at a time.
package protocol ATTRequestPDU: ATTPDU {
    associatedtype Response: ATTPDU
}

/// A PDU sent without a response (Write Command, notifications).
package protocol ATTCommandPDU: ATTPDU {}

extension ATTPDU {
    /// Decodes a whole PDU, opcode included.
    package init(pdu: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        guard let first = pdu.first else { throw .empty }
        guard first == Self.opcode.rawValue else {
            throw .malformed(Self.opcode, reason: "opcode is \(ATTOpcode(rawValue: first))")
        }
        try self.init(parameters: UnsafeRawBufferPointer(rebasing: pdu[1...]))
    }

    package init(pdu: [UInt8]) throws(ATTDecodingError) {
        let result = pdu.withUnsafeBytes { raw in
            Result { () throws(ATTDecodingError) in try Self(pdu: raw) }
        }
        self = try result.get()
    }

    /// The whole PDU, opcode first.
    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 24)
        writer.write(Self.opcode.rawValue)
        encodeParameters(into: &writer)
        return writer.bytes
    }
}

/// Reads ATT parameters and turns a short read into `ATTDecodingError.truncated`, with sizes
/// counted over the whole PDU (opcode included) as `ATTPDUView` reports them.
struct ATTParameterReader {
    private var reader: ByteReader
    let opcode: ATTOpcode

    init(_ parameters: UnsafeRawBufferPointer, opcode: ATTOpcode) {
        reader = ByteReader(parameters)
        self.opcode = opcode
    }

    var remaining: Int { reader.remaining }
    private var pduCount: Int { reader.bytes.count + 1 }

    private func truncated(_ size: Int) -> ATTDecodingError {
        .truncated(opcode, needed: 1 + reader.offset + size, got: pduCount)
    }

    mutating func uint8() throws(ATTDecodingError) -> UInt8 {
        guard let value = reader.readUInt8() else { throw truncated(1) }
        return value
    }

    mutating func uint16() throws(ATTDecodingError) -> UInt16 {
        guard let value = reader.readUInt16() else { throw truncated(2) }
        return value
    }

    mutating func attributeHandle() throws(ATTDecodingError) -> AttributeHandle {
        AttributeHandle(rawValue: try uint16())
    }

    mutating func view(count: Int) throws(ATTDecodingError) -> UnsafeRawBufferPointer {
        guard let value = reader.readView(count: count) else { throw truncated(count) }
        return value
    }

    mutating func bytes(count: Int) throws(ATTDecodingError) -> [UInt8] {
        Array(try view(count: count))
    }

    mutating func rest() -> [UInt8] { Array(reader.readRest()) }

    /// A UUID filling the rest of the parameters: 2 or 16 bytes.
    mutating func uuidFillingRest(_ field: String) throws(ATTDecodingError) -> BluetoothUUID {
        let count = reader.remaining
        guard let uuid = BluetoothUUID(attBytes: reader.readRest()) else {
            throw .malformed(opcode, reason: "\(field) of \(count) bytes (2 or 16 expected)")
        }
        return uuid
    }

    /// Fixed-size PDUs end here: extra bytes mean the peer and we disagree on the format.
    func finish() throws(ATTDecodingError) {
        guard reader.isAtEnd else {
            throw .malformed(opcode, reason: "\(reader.remaining) unexpected trailing bytes")
        }
    }
}
