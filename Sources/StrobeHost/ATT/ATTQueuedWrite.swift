import StrobeHCI

/// Prepare Write Request (Vol 3, Part F, 3.4.6.1): queue part of a value at an offset.
public struct ATTPrepareWriteRequest: ATTRequestPDU {
    public typealias Response = ATTPrepareWriteResponse
    public static let opcode = ATTOpcode.prepareWriteRequest
    public var handle: AttributeHandle
    public var offset: UInt16
    public var value: [UInt8]

    public init(handle: AttributeHandle, offset: UInt16, value: [UInt8]) {
        self.handle = handle
        self.offset = offset
        self.value = value
    }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        handle = try reader.attributeHandle()
        offset = try reader.uint16()
        value = reader.rest()
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(handle)
        writer.write(offset)
        writer.write(contentsOf: value)
    }
}

/// Prepare Write Response (Vol 3, Part F, 3.4.6.2): echoes the request so the client can check
/// what was queued.
public struct ATTPrepareWriteResponse: ATTPDU {
    public static let opcode = ATTOpcode.prepareWriteResponse
    public var handle: AttributeHandle
    public var offset: UInt16
    public var value: [UInt8]

    public init(handle: AttributeHandle, offset: UInt16, value: [UInt8]) {
        self.handle = handle
        self.offset = offset
        self.value = value
    }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        handle = try reader.attributeHandle()
        offset = try reader.uint16()
        value = reader.rest()
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(handle)
        writer.write(offset)
        writer.write(contentsOf: value)
    }
}

/// Execute Write Request flags (Vol 3, Part F, 3.4.6.3).
public struct ATTExecuteWriteFlags: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Cancel all prepared writes.
    public static let cancel = Self(rawValue: 0x00)
    /// Immediately write all pending prepared values.
    public static let write = Self(rawValue: 0x01)
}

/// Execute Write Request (Vol 3, Part F, 3.4.6.3).
public struct ATTExecuteWriteRequest: ATTRequestPDU {
    public typealias Response = ATTExecuteWriteResponse
    public static let opcode = ATTOpcode.executeWriteRequest
    public var flags: ATTExecuteWriteFlags

    public init(flags: ATTExecuteWriteFlags) { self.flags = flags }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        flags = ATTExecuteWriteFlags(rawValue: try reader.uint8())
        try reader.finish()
    }

    public func encodeParameters(into writer: inout ByteWriter) { writer.write(flags.rawValue) }
}

/// Execute Write Response (Vol 3, Part F, 3.4.6.4): no parameters.
public struct ATTExecuteWriteResponse: ATTPDU {
    public static let opcode = ATTOpcode.executeWriteResponse

    public init() {}

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        try ATTParameterReader(parameters, opcode: Self.opcode).finish()
    }

    public func encodeParameters(into writer: inout ByteWriter) {}
}
