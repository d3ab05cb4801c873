import StrobeHCI

/// Exchange MTU Request (Vol 3, Part F, 3.4.2.1): the client's receive MTU.
public struct ATTExchangeMTURequest: ATTRequestPDU {
    public typealias Response = ATTExchangeMTUResponse
    public static let opcode = ATTOpcode.exchangeMTURequest
    public var clientRxMTU: UInt16

    public init(clientRxMTU: UInt16) { self.clientRxMTU = clientRxMTU }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        clientRxMTU = try reader.uint16()
        try reader.finish()
    }

    public func encodeParameters(into writer: inout ByteWriter) { writer.write(clientRxMTU) }
}

/// Exchange MTU Response (Vol 3, Part F, 3.4.2.2): the server's receive MTU.
public struct ATTExchangeMTUResponse: ATTPDU {
    public static let opcode = ATTOpcode.exchangeMTUResponse
    public var serverRxMTU: UInt16

    public init(serverRxMTU: UInt16) { self.serverRxMTU = serverRxMTU }

    public init(parameters: UnsafeRawBufferPointer) throws(ATTDecodingError) {
        var reader = ATTParameterReader(parameters, opcode: Self.opcode)
        serverRxMTU = try reader.uint16()
        try reader.finish()
    }

    public func encodeParameters(into writer: inout ByteWriter) { writer.write(serverRxMTU) }
}

/// ATT_MTU on LE: 23 by default and at least 23 (Vol 3, Part F, 3.2.8); 517 is the largest
/// useful value: a whole 512-byte attribute after a Prepare Write's 5-byte header.
public enum ATTMTU {
    public static let minimum = 23
    public static let maximum = 517

    /// The MTU both sides use after an exchange: the smaller receive MTU, never below 23.
    public static func effective(client: Int, server: Int) -> Int {
        max(minimum, min(client, server))
    }
}
