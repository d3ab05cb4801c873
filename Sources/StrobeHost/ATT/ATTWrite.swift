import StrobeHCI

/// Write Request (Vol 3, Part F, 3.4.5.1).
package struct ATTWriteRequest: ATTRequestPDU {
    package typealias Response = ATTWriteResponse
    package static let opcode = ATTOpcode.writeRequest
    package var handle: AttributeHandle
    package var value: [UInt8]

    package init(handle: AttributeHandle, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        handle = try reader.attributeHandle()
        value = reader.rest()
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(handle)
        writer.write(contentsOf: value)
    }
}

/// Write Response (Vol 3, Part F, 3.4.5.2): no parameters.
package struct ATTWriteResponse: ATTPDU {
    package static let opcode = ATTOpcode.writeResponse

    package init() {}

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        try ATTParameterReader(parameters, opcode: Self.opcode).finish()
    }

    package func encodeParameters(into writer: inout ByteWriter) {}
}

/// Write Command (Vol 3, Part F, 3.4.5.3): a write without a response.
package struct ATTWriteCommand: ATTCommandPDU {
    package static let opcode = ATTOpcode.writeCommand
    package var handle: AttributeHandle
    package var value: [UInt8]

    package init(handle: AttributeHandle, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        handle = try reader.attributeHandle()
        value = reader.rest()
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(handle)
        writer.write(contentsOf: value)
    }
}
