import StrobeHCI

/// Find By Type Value Request (Vol 3, Part F, 3.4.3.3): attributes of a 16-bit type whose value
/// equals the given bytes (GATT uses it to find a primary service by UUID).
package struct ATTFindByTypeValueRequest: ATTRequestPDU {
    package typealias Response = ATTFindByTypeValueResponse
    package static let opcode = ATTOpcode.findByTypeValueRequest
    package var startingHandle: AttributeHandle
    package var endingHandle: AttributeHandle
    package var attributeType: UInt16
    package var attributeValue: [UInt8]

    package init(startingHandle: AttributeHandle, endingHandle: AttributeHandle, attributeType: UInt16, attributeValue: [UInt8]) {
        self.startingHandle = startingHandle
        self.endingHandle = endingHandle
        self.attributeType = attributeType
        self.attributeValue = attributeValue
    }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        startingHandle = try reader.attributeHandle()
        endingHandle = try reader.attributeHandle()
        attributeType = try reader.uint16()
        attributeValue = reader.rest()
    }

    package func encodeParameters(into writer: inout ByteWriter) {
        writer.write(startingHandle)
        writer.write(endingHandle)
        writer.write(attributeType)
        writer.write(contentsOf: attributeValue)
    }
}

/// A found attribute and the end of its group.
package struct ATTHandlesInformation: Sendable, Hashable {
    package var foundAttributeHandle: AttributeHandle
    package var groupEndHandle: AttributeHandle
    package init(foundAttributeHandle: AttributeHandle, groupEndHandle: AttributeHandle) {
        self.foundAttributeHandle = foundAttributeHandle
        self.groupEndHandle = groupEndHandle
    }
}

/// Find By Type Value Response (Vol 3, Part F, 3.4.3.4): one or more 4-byte handle pairs.
package struct ATTFindByTypeValueResponse: ATTPDU {
    package static let opcode = ATTOpcode.findByTypeValueResponse
    package var handles: [ATTHandlesInformation]

    package init(handles: [ATTHandlesInformation]) { self.handles = handles }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
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

    package func encodeParameters(into writer: inout ByteWriter) {
        for entry in handles {
            writer.write(entry.foundAttributeHandle)
            writer.write(entry.groupEndHandle)
        }
    }
}
