import StrobeHCI

/// Read By Group Type Request (Vol 3, Part F, 3.4.4.9): grouping attributes (services) in a range.
package struct ATTReadByGroupTypeRequest: ATTRequestPDU {
    package typealias Response = ATTReadByGroupTypeResponse
    package static let opcode = ATTOpcode.readByGroupTypeRequest
    package var startingHandle: AttributeHandle
    package var endingHandle: AttributeHandle
    package var attributeGroupType: BluetoothUUID

    package init(startingHandle: AttributeHandle, endingHandle: AttributeHandle, attributeGroupType: BluetoothUUID) {
        self.startingHandle = startingHandle
        self.endingHandle = endingHandle
        self.attributeGroupType = attributeGroupType
    }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        startingHandle = try reader.attributeHandle()
        endingHandle = try reader.attributeHandle()
        attributeGroupType = try reader.uuidFillingRest("attribute group type")
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(startingHandle)
        writer.write(endingHandle)
        attributeGroupType.encodeATT(into: &writer)
    }
}

/// A grouping attribute: its handle, the last handle of its group, and its value.
package struct ATTGroupData: Sendable, Hashable {
    package var handle: AttributeHandle
    package var endGroupHandle: AttributeHandle
    package var value: [UInt8]
    package init(handle: AttributeHandle, endGroupHandle: AttributeHandle, value: [UInt8]) {
        self.handle = handle
        self.endGroupHandle = endGroupHandle
        self.value = value
    }
}

/// Read By Group Type Response (Vol 3, Part F, 3.4.4.10): a length byte, then entries of that
/// length (handle, end group handle, value).
package struct ATTReadByGroupTypeResponse: ATTPDU {
    package static let opcode = ATTOpcode.readByGroupTypeResponse
    /// Values all of one length (the encoder takes the first entry's).
    package var entries: [ATTGroupData]

    package init(entries: [ATTGroupData]) { self.entries = entries }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var entries: [ATTGroupData] = []
        try ATTLengthPrefixedList.decode(parameters, opcode: Self.opcode, fixedFields: 4) { reader throws(ATTDecodingError) in
            let handle = try reader.attributeHandle()
            let end = try reader.attributeHandle()
            entries.append(ATTGroupData(handle: handle, endGroupHandle: end, value: reader.rest()))
        }
        self.entries = entries
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(UInt8(truncatingIfNeeded: 4 + (entries.first?.value.count ?? 0)))
        for entry in entries {
            writer.write(entry.handle)
            writer.write(entry.endGroupHandle)
            writer.write(contentsOf: entry.value)
        }
    }
}
