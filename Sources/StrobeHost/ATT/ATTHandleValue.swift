import StrobeHCI

/// Handle Value Notification (Vol 3, Part F, 3.4.7.1). The client's receive path routes these
/// through `ATTPDUView` without a copy; this codec is for a server and for tests.
public struct ATTHandleValueNotification: ATTCommandPDU {
    public static let opcode = ATTOpcode.handleValueNotification
    public var handle: AttributeHandle
    public var value: [UInt8]

    public init(handle: AttributeHandle, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        handle = try reader.attributeHandle()
        value = reader.rest()
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(handle)
        writer.write(contentsOf: value)
    }
}

/// Handle Value Indication (Vol 3, Part F, 3.4.7.2): confirmed by a Handle Value Confirmation.
public struct ATTHandleValueIndication: ATTPDU {
    public static let opcode = ATTOpcode.handleValueIndication
    public var handle: AttributeHandle
    public var value: [UInt8]

    public init(handle: AttributeHandle, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        handle = try reader.attributeHandle()
        value = reader.rest()
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(handle)
        writer.write(contentsOf: value)
    }
}

/// Handle Value Confirmation (Vol 3, Part F, 3.4.7.3): no parameters.
public struct ATTHandleValueConfirmation: ATTPDU {
    public static let opcode = ATTOpcode.handleValueConfirmation

    public init() {}

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        try ATTParameterReader(parameters, opcode: Self.opcode).finish()
    }

    public func encodeParameters(into writer: inout ByteWriter) {}
}
