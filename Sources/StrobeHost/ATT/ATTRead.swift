import StrobeHCI

/// Read Request (Vol 3, Part F, 3.4.4.3).
public struct ATTReadRequest: ATTRequestPDU {
    public typealias Response = ATTReadResponse
    public static let opcode = ATTOpcode.readRequest
    public var handle: AttributeHandle

    public init(handle: AttributeHandle) { self.handle = handle }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        handle = try reader.attributeHandle()
        try reader.finish()
    }

    public func encodeParameters(into writer: inout ByteWriter) { writer.write(handle) }
}

/// Read Response (Vol 3, Part F, 3.4.4.4): at most ATT_MTU - 1 bytes of the value.
public struct ATTReadResponse: ATTPDU {
    public static let opcode = ATTOpcode.readResponse
    public var value: [UInt8]

    public init(value: [UInt8]) { self.value = value }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) { value = Array(parameters) }

    public func encodeParameters(into writer: inout ByteWriter) { writer.write(contentsOf: value) }
}

/// Read Blob Request (Vol 3, Part F, 3.4.4.5): part of a long value, from an offset.
public struct ATTReadBlobRequest: ATTRequestPDU {
    public typealias Response = ATTReadBlobResponse
    public static let opcode = ATTOpcode.readBlobRequest
    public var handle: AttributeHandle
    public var offset: UInt16

    public init(handle: AttributeHandle, offset: UInt16) {
        self.handle = handle
        self.offset = offset
    }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        handle = try reader.attributeHandle()
        offset = try reader.uint16()
        try reader.finish()
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(handle)
        writer.write(offset)
    }
}

/// Read Blob Response (Vol 3, Part F, 3.4.4.6).
public struct ATTReadBlobResponse: ATTPDU {
    public static let opcode = ATTOpcode.readBlobResponse
    public var value: [UInt8]

    public init(value: [UInt8]) { self.value = value }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) { value = Array(parameters) }

    public func encodeParameters(into writer: inout ByteWriter) { writer.write(contentsOf: value) }
}

/// Read Multiple Request (Vol 3, Part F, 3.4.4.7): two or more handles.
public struct ATTReadMultipleRequest: ATTRequestPDU {
    public typealias Response = ATTReadMultipleResponse
    public static let opcode = ATTOpcode.readMultipleRequest
    public var handles: [AttributeHandle]

    public init(handles: [AttributeHandle]) { self.handles = handles }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        guard parameters.count >= 4 else { throw .truncated(Self.opcode, needed: 5, got: parameters.count + 1) }
        guard parameters.count % 2 == 0 else {
            throw .malformed(Self.opcode, reason: "\(parameters.count) bytes of handles is odd")
        }
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        var handles: [AttributeHandle] = []
        while reader.remaining > 0 { handles.append(try reader.attributeHandle()) }
        self.handles = handles
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        for handle in handles { writer.write(handle) }
    }
}

/// Read Multiple Response (Vol 3, Part F, 3.4.4.8): the values concatenated, without lengths.
public struct ATTReadMultipleResponse: ATTPDU {
    public static let opcode = ATTOpcode.readMultipleResponse
    public var values: [UInt8]

    public init(values: [UInt8]) { self.values = values }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) { values = Array(parameters) }

    public func encodeParameters(into writer: inout ByteWriter) { writer.write(contentsOf: values) }
}
