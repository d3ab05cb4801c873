import StrobeHCI

/// Read By Type Request (Vol 3, Part F, 3.4.4.1): values of the attributes of one type in a range.
package struct ATTReadByTypeRequest: ATTRequestPDU {
    package typealias Response = ATTReadByTypeResponse
    package static let opcode = ATTOpcode.readByTypeRequest
    package var startingHandle: AttributeHandle
    package var endingHandle: AttributeHandle
    package var attributeType: BluetoothUUID

    package init(startingHandle: AttributeHandle, endingHandle: AttributeHandle, attributeType: BluetoothUUID) {
        self.startingHandle = startingHandle
        self.endingHandle = endingHandle
        self.attributeType = attributeType
    }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        startingHandle = try reader.attributeHandle()
        endingHandle = try reader.attributeHandle()
        attributeType = try reader.uuidFillingRest("attribute type")
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(startingHandle)
        writer.write(endingHandle)
        attributeType.encodeATT(into: &writer)
    }
}

/// One attribute handle and its value.
package struct ATTHandleValue: Sendable, Hashable {
    package var handle: AttributeHandle
    package var value: [UInt8]
    package init(handle: AttributeHandle, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

/// Read By Type Response (Vol 3, Part F, 3.4.4.2): a length byte, then handle-value pairs all of
/// that length.
package struct ATTReadByTypeResponse: ATTPDU {
    package static let opcode = ATTOpcode.readByTypeResponse
    /// Values all of one length (the encoder takes the first entry's).
    package var entries: [ATTHandleValue]

    package init(entries: [ATTHandleValue]) { self.entries = entries }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var entries: [ATTHandleValue] = []
        try ATTLengthPrefixedList.decode(parameters, opcode: Self.opcode, fixedFields: 2) { reader throws(ATTDecodingError) in
            let handle = try reader.attributeHandle()
            entries.append(ATTHandleValue(handle: handle, value: reader.rest()))
        }
        self.entries = entries
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(UInt8(truncatingIfNeeded: 2 + (entries.first?.value.count ?? 0)))
        for entry in entries {
            writer.write(entry.handle)
            writer.write(contentsOf: entry.value)
        }
    }
}

/// The layout shared by Read By Type and Read By Group Type responses: a length byte, then one
/// or more entries of exactly that length, which must divide the rest evenly.
enum ATTLengthPrefixedList {
    static func decode(
        _ parameters: UnsafeRawBufferPointer, opcode: ATTOpcode, fixedFields: Int,
        entry: (inout ATTParameterReader) throws(ATTDecodingError) -> Void
    ) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: opcode)
        let length = Int(try reader.uint8())
        guard length >= fixedFields else {
            throw .malformed(opcode, reason: "entry length \(length) is shorter than its \(fixedFields) fixed bytes")
        }
        let data = reader.remaining
        guard data >= length else { throw .truncated(opcode, needed: 2 + length, got: parameters.count + 1) }
        guard data % length == 0 else {
            throw .malformed(opcode, reason: "\(data) bytes of data is not a multiple of entry length \(length)")
        }
        while reader.remaining > 0 {
            var entryReader = ATTParameterReader(try reader.view(count: length), opcode: opcode)
            try entry(&entryReader)
        }
    }
}
