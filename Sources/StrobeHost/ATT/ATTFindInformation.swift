import StrobeHCI

/// Find Information Request (Vol 3, Part F, 3.4.3.1): handles and types in a range.
package struct ATTFindInformationRequest: ATTRequestPDU {
    package typealias Response = ATTFindInformationResponse
    package static let opcode = ATTOpcode.findInformationRequest
    package var startingHandle: AttributeHandle
    package var endingHandle: AttributeHandle

    package init(startingHandle: AttributeHandle, endingHandle: AttributeHandle) {
        self.startingHandle = startingHandle
        self.endingHandle = endingHandle
    }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        startingHandle = try reader.attributeHandle()
        endingHandle = try reader.attributeHandle()
        try reader.finish()
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(startingHandle)
        writer.write(endingHandle)
    }
}

/// One handle and its attribute type.
package struct ATTHandleUUID: Sendable, Hashable {
    package var handle: AttributeHandle
    package var uuid: BluetoothUUID
    package init(handle: AttributeHandle, uuid: BluetoothUUID) {
        self.handle = handle
        self.uuid = uuid
    }
}

/// Find Information Response (Vol 3, Part F, 3.4.3.2): format 0x01 carries 16-bit UUIDs,
/// 0x02 128-bit ones; one format per response.
package struct ATTFindInformationResponse: ATTPDU {
    package static let opcode = ATTOpcode.findInformationResponse
    /// All of one UUID size (the encoder takes the first entry's).
    package var entries: [ATTHandleUUID]

    package init(entries: [ATTHandleUUID]) { self.entries = entries }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        let format = try reader.uint8()
        let uuidSize: Int
        switch format {
        case 0x01: uuidSize = 2
        case 0x02: uuidSize = 16
        default: throw .malformed(Self.opcode, reason: "unknown format 0x\(String(format, radix: 16))")
        }
        let entrySize = 2 + uuidSize
        guard reader.remaining >= entrySize else { throw .truncated(Self.opcode, needed: 2 + entrySize, got: parameters.count + 1) }
        guard reader.remaining % entrySize == 0 else {
            throw .malformed(Self.opcode, reason: "\(reader.remaining) bytes of information data is not a multiple of \(entrySize)")
        }
        var entries: [ATTHandleUUID] = []
        entries.reserveCapacity(reader.remaining / entrySize)
        while reader.remaining > 0 {
            let handle = try reader.attributeHandle()
            guard let uuid = BluetoothUUID(attBytes: try reader.view(count: uuidSize)) else {
                throw .malformed(Self.opcode, reason: "bad UUID")
            }
            entries.append(ATTHandleUUID(handle: handle, uuid: uuid))
        }
        self.entries = entries
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        let wide = entries.first.map { $0.uuid.uuid16 == nil } ?? false
        writer.write(UInt8(wide ? 0x02 : 0x01))
        for entry in entries {
            writer.write(entry.handle)
            entry.uuid.encodeATT(into: &writer)
        }
    }
}
