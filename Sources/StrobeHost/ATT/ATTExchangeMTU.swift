import StrobeHCI

/// Exchange MTU Request (Vol 3, Part F, 3.4.2.1): the client's receive MTU.
package struct ATTExchangeMTURequest: ATTRequestPDU {
    package typealias Response = ATTExchangeMTUResponse
    package static let opcode = ATTOpcode.exchangeMTURequest
    package var clientRxMTU: UInt16

    package init(clientRxMTU: UInt16) { self.clientRxMTU = clientRxMTU }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        clientRxMTU = try reader.uint16()
        try reader.finish()
    }

    package func encodeParameters(into writer: inout ByteWriter) { writer.write(clientRxMTU) }
}

/// Exchange MTU Response (Vol 3, Part F, 3.4.2.2): the server's receive MTU.
package struct ATTExchangeMTUResponse: ATTPDU {
    package static let opcode = ATTOpcode.exchangeMTUResponse
    package var serverRxMTU: UInt16

    package init(serverRxMTU: UInt16) { self.serverRxMTU = serverRxMTU }

    package init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        serverRxMTU = try reader.uint16()
        try reader.finish()
    }

    package func encodeParameters(into writer: inout ByteWriter) { writer.write(serverRxMTU) }
}

/// ATT_MTU on LE: 23 by default and at least 23 (Vol 3, Part F, 3.2.8); 517 is the largest
/// useful value: a whole 512-byte attribute after a Prepare Write's 5-byte header.
package enum ATTMTU {
    package static let minimum = 23
    package static let maximum = 517

    /// The MTU both sides use after an exchange: the smaller receive MTU, never below 23.
    package static func effective(client: Int, server: Int) -> Int {
        max(minimum, min(client, server))
    }
}
