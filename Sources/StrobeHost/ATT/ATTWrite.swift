import StrobeHCI

/// Write Request (Vol 3, Part F, 3.4.5.1).
public struct ATTWriteRequest: ATTRequestPDU {
    public typealias Response = ATTWriteResponse
    public static let opcode = ATTOpcode.writeRequest
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

/// Write Response (Vol 3, Part F, 3.4.5.2): no parameters.
public struct ATTWriteResponse: ATTPDU {
    public static let opcode = ATTOpcode.writeResponse

    public init() {}

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        try ATTParameterReader(parameters, opcode: Self.opcode).finish()
    }

    public func encodeParameters(into writer: inout ByteWriter) {}
}

/// Write Command (Vol 3, Part F, 3.4.5.3): a write without a response.
public struct ATTWriteCommand: ATTCommandPDU {
    public static let opcode = ATTOpcode.writeCommand
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
