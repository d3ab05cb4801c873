import StrobeHCI

/// One LAN datagram: the header and its message.
package struct LIFXPacket: Sendable, Hashable {
    package var header: LIFXHeader
    package var message: LIFXMessage

    package init(message: LIFXMessage, source: UInt32, target: UInt64 = 0, sequence: UInt8,
                ackRequired: Bool = false, resRequired: Bool = false) {
        header = LIFXHeader(size: 0, tagged: target == 0, source: source, target: target, resRequired: resRequired,
                            ackRequired: ackRequired, sequence: sequence, type: message.type)
        self.message = message
    }

    package func encoded() -> [UInt8] {
        var payload = ByteWriter(capacity: 64)
        message.encodePayload(into: &payload)
        var header = self.header
        header.size = UInt16(LIFXHeader.size + payload.bytes.count)
        header.type = message.type
        var writer = ByteWriter(capacity: Int(header.size))
        header.encode(into: &writer)
        writer.write(contentsOf: payload.bytes)
        return writer.bytes
    }

    /// Checks the header's size against the datagram before reading the payload.
    package init(decoding bytes: UnsafeRawBufferPointer) throws(LightsError) {
        var reader = ByteReader(bytes)
        header = try LIFXHeader(decoding: &reader)
        guard Int(header.size) == bytes.count else {
            throw .malformedLIFXMessage("header says \(header.size) bytes, the datagram has \(bytes.count)")
        }
        message = try LIFXMessage(type: header.type, payload: &reader)
    }

    package init(decoding bytes: [UInt8]) throws(LightsError) {
        var result: Result<LIFXPacket, LightsError>!
        bytes.withUnsafeBytes { raw in
            do throws(LightsError) { result = .success(try LIFXPacket(decoding: raw)) } catch { result = .failure(error) }
        }
        self = try result.get()
    }
}
