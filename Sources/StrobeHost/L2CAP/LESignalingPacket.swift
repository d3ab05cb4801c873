import StrobeHCI

/// LE signalling channel (CID 5) commands this host understands (Core Vol 3, Part A, 4).
package enum LESignalingCode: UInt8, Sendable {
    case commandReject = 0x01
    case disconnectionRequest = 0x06
    case disconnectionResponse = 0x07
    case connectionParameterUpdateRequest = 0x12
    case connectionParameterUpdateResponse = 0x13
    case leCreditBasedConnectionRequest = 0x14
    case leCreditBasedConnectionResponse = 0x15
    case flowControlCredit = 0x16
    case creditBasedConnectionRequest = 0x17
    case creditBasedConnectionResponse = 0x18
    case creditBasedReconfigureRequest = 0x19
    case creditBasedReconfigureResponse = 0x1A
}

/// One signalling command: `[code][identifier][length u16][data]`. On LE each C-frame carries
/// exactly one command.
package struct LESignalingPacket: Sendable, Hashable {
    package static let headerLength = 4

    package var code: UInt8
    package var identifier: UInt8
    package var data: [UInt8]

    package init(code: UInt8, identifier: UInt8, data: [UInt8]) {
        self.code = code
        self.identifier = identifier
        self.data = data
    }

    package init(parsing bytes: UnsafeRawBufferPointer) throws(L2CAPSignalingError) {
        var reader = ByteReader(bytes)
        guard let code = reader.readUInt8(), let identifier = reader.readUInt8(), let length = reader.readUInt16() else {
            throw .truncated(length: bytes.count)
        }
        guard reader.remaining == Int(length) else {
            throw .lengthMismatch(code: code, announced: Int(length), actual: reader.remaining)
        }
        guard identifier != 0 else { throw .zeroIdentifier(code: code) }
        self.code = code
        self.identifier = identifier
        data = Array(reader.readRest())
    }

    package var encoded: [UInt8] {
        var writer = ByteWriter(capacity: Self.headerLength + data.count)
        writer.write(code)
        writer.write(identifier)
        writer.write(UInt16(data.count))
        writer.write(contentsOf: data)
        return writer.bytes
    }

    /// Command Reject with reason 0x0000, Command not understood.
    package static func commandNotUnderstood(identifier: UInt8) -> LESignalingPacket {
        LESignalingPacket(code: LESignalingCode.commandReject.rawValue, identifier: identifier, data: [0x00, 0x00])
    }

    /// Command Reject with reason 0x0002, Invalid CID in request: the request's CIDs as the
    /// rejecting side sees them, its own (local) first.
    package static func invalidCIDInRequest(identifier: UInt8, local: L2CAPChannelID, remote: L2CAPChannelID) -> LESignalingPacket {
        var writer = ByteWriter(capacity: 6)
        writer.write(UInt16(0x0002))
        writer.write(local.rawValue)
        writer.write(remote.rawValue)
        return LESignalingPacket(code: LESignalingCode.commandReject.rawValue, identifier: identifier, data: writer.bytes)
    }
}

/// L2CAP_CONNECTION_PARAMETER_UPDATE_REQ from a peripheral, in units of the spec:
/// intervals 1.25 ms, timeout 10 ms.
package struct ConnectionParameterUpdateRequest: Sendable, Hashable {
    package var intervalMin: UInt16
    package var intervalMax: UInt16
    package var latency: UInt16
    package var timeout: UInt16

    package init(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.latency = latency
        self.timeout = timeout
    }

    package init(data: [UInt8]) throws(L2CAPSignalingError) {
        guard data.count == 8 else {
            throw .lengthMismatch(code: LESignalingCode.connectionParameterUpdateRequest.rawValue, announced: 8, actual: data.count)
        }
        func field(_ offset: Int) -> UInt16 { UInt16(data[offset]) | UInt16(data[offset + 1]) << 8 }
        self.init(intervalMin: field(0), intervalMax: field(2), latency: field(4), timeout: field(6))
    }

    /// The ranges of Core Vol 3, Part A, 4.20, and the supervision timeout long enough for the
    /// latency asked for (Vol 6, Part B, 4.5.2).
    package var isAcceptable: Bool { parameters.isValid }

    package var parameters: LEConnectionParameters {
        LEConnectionParameters(intervalMin: intervalMin, intervalMax: intervalMax, maxLatency: latency, supervisionTimeout: timeout)
    }

    /// L2CAP_CONNECTION_PARAMETER_UPDATE_REQ, as a peripheral sends it.
    package func request(identifier: UInt8) -> LESignalingPacket {
        let data = [intervalMin, intervalMax, latency, timeout].flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        return LESignalingPacket(code: LESignalingCode.connectionParameterUpdateRequest.rawValue, identifier: identifier, data: data)
    }

    /// L2CAP_CONNECTION_PARAMETER_UPDATE_RSP: result 0x0000 accepted, 0x0001 rejected.
    package static func response(identifier: UInt8, accepted: Bool) -> LESignalingPacket {
        LESignalingPacket(code: LESignalingCode.connectionParameterUpdateResponse.rawValue, identifier: identifier,
                          data: [accepted ? 0x00 : 0x01, 0x00])
    }
}

/// A signalling command that could not be used.
package enum L2CAPSignalingError: Error, Sendable, Hashable, CustomStringConvertible {
    case truncated(length: Int)
    case lengthMismatch(code: UInt8, announced: Int, actual: Int)
    case zeroIdentifier(code: UInt8)
    /// A command whose data must be `minimum` bytes and then whole 16-bit CIDs is not.
    case badCIDList(code: UInt8, minimum: Int, actual: Int)

    package var description: String {
        switch self {
        case .truncated(let length): "signalling command of \(length) bytes is shorter than its 4-byte header"
        case .lengthMismatch(let code, let announced, let actual):
            "signalling command 0x\(String(code, radix: 16)) announces \(announced) data bytes but carries \(actual)"
        case .zeroIdentifier(let code): "signalling command 0x\(String(code, radix: 16)) has identifier 0, which is reserved"
        case .badCIDList(let code, let minimum, let actual):
            "signalling command 0x\(String(code, radix: 16)) carries \(actual) data bytes, not \(minimum) and a list of 2-byte CIDs"
        }
    }
}
