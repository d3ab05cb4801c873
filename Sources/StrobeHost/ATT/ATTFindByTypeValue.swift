import StrobeHCI

/// Find By Type Value Request (Vol 3, Part F, 3.4.3.3): attributes of a 16-bit type whose value
/// equals the given bytes (GATT uses it to find a primary service by UUID).
public struct ATTFindByTypeValueRequest: ATTRequestPDU {
    public typealias Response = ATTFindByTypeValueResponse
    public static let opcode = ATTOpcode.findByTypeValueRequest
    public var startingHandle: AttributeHandle
    public var endingHandle: AttributeHandle
    public var attributeType: UInt16
    public var attributeValue: [UInt8]

    public init(startingHandle: AttributeHandle, endingHandle: AttributeHandle, attributeType: UInt16, attributeValue: [UInt8]) {
        self.startingHandle = startingHandle
        self.endingHandle = endingHandle
        self.attributeType = attributeType
        self.attributeValue = attributeValue
    }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        startingHandle = try reader.attributeHandle()
        endingHandle = try reader.attributeHandle()
        attributeType = try reader.uint16()
        attributeValue = reader.rest()
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        writer.write(startingHandle)
        writer.write(endingHandle)
        writer.write(attributeType)
        writer.write(contentsOf: attributeValue)
    }
}

/// A found attribute and the end of its group.
public struct ATTHandlesInformation: Sendable, Hashable {
    public var foundAttributeHandle: AttributeHandle
    public var groupEndHandle: AttributeHandle
    public init(foundAttributeHandle: AttributeHandle, groupEndHandle: AttributeHandle) {
        self.foundAttributeHandle = foundAttributeHandle
        self.groupEndHandle = groupEndHandle
    }
}

/// Find By Type Value Response (Vol 3, Part F, 3.4.3.4): one or more 4-byte handle pairs.
public struct ATTFindByTypeValueResponse: ATTPDU {
    public static let opcode = ATTOpcode.findByTypeValueResponse
    public var handles: [ATTHandlesInformation]

    public init(handles: [ATTHandlesInformation]) { self.handles = handles }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        guard parameters.count >= 4 else { throw .truncated(Self.opcode, needed: 5, got: parameters.count + 1) }
        guard parameters.count % 4 == 0 else {
            throw .malformed(Self.opcode, reason: "\(parameters.count) bytes of handles information is not a multiple of 4")
        }
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        var handles: [ATTHandlesInformation] = []
        handles.reserveCapacity(parameters.count / 4)
        while reader.remaining > 0 {
            handles.append(ATTHandlesInformation(foundAttributeHandle: try reader.attributeHandle(), groupEndHandle: try reader.attributeHandle()))
        }
        self.handles = handles
    }

    public func encodeParameters(into writer: inout ByteWriter) {
        for entry in handles {
            writer.write(entry.foundAttributeHandle)
            writer.write(entry.groupEndHandle)
        }
    }
}
