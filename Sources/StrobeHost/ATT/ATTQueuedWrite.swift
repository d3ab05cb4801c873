import StrobeHCI

/// Prepare Write Request (Vol 3, Part F, 3.4.6.1): queue part of a value at an offset.
package struct ATTPrepareWriteRequest: ATTRequestPDU {
    package typealias Response = ATTPrepareWriteResponse
    package static let opcode = ATTOpcode.prepareWriteRequest
    package var handle: AttributeHandle
    package var offset: UInt16
    package var value: [UInt8]

    package init(handle: AttributeHandle, offset: UInt16, value: [UInt8]) {
        self.handle = handle
        self.offset = offset
        self.value = value
    }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        handle = try reader.attributeHandle()
        offset = try reader.uint16()
        value = reader.rest()
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(handle)
        writer.write(offset)
        writer.write(contentsOf: value)
    }
}

/// Prepare Write Response (Vol 3, Part F, 3.4.6.2): echoes the request so the client can check
/// what was queued.
package struct ATTPrepareWriteResponse: ATTPDU {
    package static let opcode = ATTOpcode.prepareWriteResponse
    package var handle: AttributeHandle
    package var offset: UInt16
    package var value: [UInt8]

    package init(handle: AttributeHandle, offset: UInt16, value: [UInt8]) {
        self.handle = handle
        self.offset = offset
        self.value = value
    }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        handle = try reader.attributeHandle()
        offset = try reader.uint16()
        value = reader.rest()
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(handle)
        writer.write(offset)
        writer.write(contentsOf: value)
    }
}

/// Execute Write Request flags (Vol 3, Part F, 3.4.6.3).
package struct ATTExecuteWriteFlags: RawRepresentable, Hashable, Sendable {
    package var rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Cancel all prepared writes.
    package static let cancel = Self(rawValue: 0x00)
    /// Immediately write all pending prepared values.
    package static let write = Self(rawValue: 0x01)
}

/// Execute Write Request (Vol 3, Part F, 3.4.6.3).
package struct ATTExecuteWriteRequest: ATTRequestPDU {
    package typealias Response = ATTExecuteWriteResponse
    package static let opcode = ATTOpcode.executeWriteRequest
    package var flags: ATTExecuteWriteFlags

    package init(flags: ATTExecuteWriteFlags) { self.flags = flags }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        flags = ATTExecuteWriteFlags(rawValue: try reader.uint8())
        try reader.finish()
    }

    package func encodeParameters(into writer: inout ByteWriter) { writer.write(flags.rawValue) }
}

/// Execute Write Response (Vol 3, Part F, 3.4.6.4): no parameters.
package struct ATTExecuteWriteResponse: ATTPDU {
    package static let opcode = ATTOpcode.executeWriteResponse

    package init() {}

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        try ATTParameterReader(parameters, opcode: Self.opcode).finish()
    }

    package func encodeParameters(into writer: inout ByteWriter) {}
}
