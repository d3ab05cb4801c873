import StrobeHCI

/// Error Response (Vol 3, Part F, 3.4.1.1): which request failed, on which handle, and why.
package struct ATTErrorResponse: ATTPDU {
    package static let opcode = ATTOpcode.errorResponse
    package var requestOpcode: ATTOpcode
    /// The handle that caused the error, 0x0000 when none did.
    package var handle: AttributeHandle
    package var error: ATTErrorCode

    package init(requestOpcode: ATTOpcode, handle: AttributeHandle, error: ATTErrorCode) {
        self.requestOpcode = requestOpcode
        self.handle = handle
        self.error = error
    }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        requestOpcode = ATTOpcode(rawValue: try reader.uint8())
        handle = try reader.attributeHandle()
        error = ATTErrorCode(rawValue: try reader.uint8())
        try reader.finish()
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(requestOpcode.rawValue)
        writer.write(handle)
        writer.write(error.rawValue)
    }
}
