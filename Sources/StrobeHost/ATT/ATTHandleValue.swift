import StrobeHCI

/// Handle Value Notification (Vol 3, Part F, 3.4.7.1). The client's receive path routes these
/// through `ATTPDUView` without a copy; this codec is for a server and for tests.
package struct ATTHandleValueNotification: ATTCommandPDU {
    package static let opcode = ATTOpcode.handleValueNotification
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

/// Handle Value Indication (Vol 3, Part F, 3.4.7.2): confirmed by a Handle Value Confirmation.
package struct ATTHandleValueIndication: ATTPDU {
    package static let opcode = ATTOpcode.handleValueIndication
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

/// Handle Value Confirmation (Vol 3, Part F, 3.4.7.3): no parameters.
package struct ATTHandleValueConfirmation: ATTPDU {
    package static let opcode = ATTOpcode.handleValueConfirmation

    package init() {}

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        try ATTParameterReader(parameters, opcode: Self.opcode).finish()
    }

    package func encodeParameters(into writer: inout ByteWriter) {}
}
