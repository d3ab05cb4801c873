import StrobeHCI

/// Read Request (Vol 3, Part F, 3.4.4.3).
package struct ATTReadRequest: ATTRequestPDU {
    package typealias Response = ATTReadResponse
    package static let opcode = ATTOpcode.readRequest
    package var handle: AttributeHandle

    package init(handle: AttributeHandle) { self.handle = handle }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        handle = try reader.attributeHandle()
        try reader.finish()
    }

    package func encodeParameters(into writer: inout ByteWriter) { writer.write(handle) }
}

/// Read Response (Vol 3, Part F, 3.4.4.4): at most ATT_MTU - 1 bytes of the value.
package struct ATTReadResponse: ATTPDU {
    package static let opcode = ATTOpcode.readResponse
    package var value: [UInt8]

    package init(value: [UInt8]) { self.value = value }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) { value = Array(parameters) }

    package func encodeParameters(into writer: inout ByteWriter) { writer.write(contentsOf: value) }
}

/// Read Blob Request (Vol 3, Part F, 3.4.4.5): part of a long value, from an offset.
package struct ATTReadBlobRequest: ATTRequestPDU {
    package typealias Response = ATTReadBlobResponse
    package static let opcode = ATTOpcode.readBlobRequest
    package var handle: AttributeHandle
    package var offset: UInt16

    package init(handle: AttributeHandle, offset: UInt16) {
        self.handle = handle
        self.offset = offset
    }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        handle = try reader.attributeHandle()
        offset = try reader.uint16()
        try reader.finish()
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(handle)
        writer.write(offset)
    }
}

/// Read Blob Response (Vol 3, Part F, 3.4.4.6).
package struct ATTReadBlobResponse: ATTPDU {
    package static let opcode = ATTOpcode.readBlobResponse
    package var value: [UInt8]

    package init(value: [UInt8]) { self.value = value }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) { value = Array(parameters) }

    package func encodeParameters(into writer: inout ByteWriter) { writer.write(contentsOf: value) }
}

/// Read Multiple Request (Vol 3, Part F, 3.4.4.7): two or more handles.
package struct ATTReadMultipleRequest: ATTRequestPDU {
    package typealias Response = ATTReadMultipleResponse
    package static let opcode = ATTOpcode.readMultipleRequest
    package var handles: [AttributeHandle]

    package init(handles: [AttributeHandle]) { self.handles = handles }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        guard parameters.count >= 4 else { throw .truncated(Self.opcode, needed: 5, got: parameters.count + 1) }
        guard parameters.count % 2 == 0 else {
            throw .malformed(Self.opcode, reason: "\(parameters.count) bytes of handles is odd")
        }
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        var handles: [AttributeHandle] = []
        while reader.remaining > 0 { handles.append(try reader.attributeHandle()) }
        self.handles = handles
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        for handle in handles { writer.write(handle) }
    }
}

/// Read Multiple Response (Vol 3, Part F, 3.4.4.8): the values concatenated, without lengths.
package struct ATTReadMultipleResponse: ATTPDU {
    package static let opcode = ATTOpcode.readMultipleResponse
    package var values: [UInt8]

    package init(values: [UInt8]) { self.values = values }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) { values = Array(parameters) }

    package func encodeParameters(into writer: inout ByteWriter) { writer.write(contentsOf: values) }
}
