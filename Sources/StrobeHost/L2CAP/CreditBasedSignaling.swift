import StrobeHCI

/// The outcome of an LE Credit Based Connection Request (Core Vol 3, Part A, 4.23) or of a
/// Credit Based Connection Request (4.26, where 0x0004, 0x0009 and 0x000A refuse some of the
/// channels asked for). A raw value the spec does not name is kept as it came.
public struct L2CAPCreditBasedResult: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 16-bit Result field of the response.
    public var rawValue: UInt16
    /// Wraps any result, including values the spec does not name.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 0x0000 Connection successful (all connections successful).
    public static let success = Self(rawValue: 0x0000)
    /// 0x0002 Connection refused, SPSM not supported.
    public static let spsmNotSupported = Self(rawValue: 0x0002)
    /// 0x0004 Connection refused, no resources available.
    public static let noResources = Self(rawValue: 0x0004)
    /// 0x0005 Connection refused, insufficient authentication.
    public static let insufficientAuthentication = Self(rawValue: 0x0005)
    /// 0x0006 Connection refused, insufficient authorization.
    public static let insufficientAuthorization = Self(rawValue: 0x0006)
    /// 0x0007 Connection refused, encryption key size too short.
    public static let encryptionKeySizeTooShort = Self(rawValue: 0x0007)
    /// 0x0008 Connection refused, insufficient encryption.
    public static let insufficientEncryption = Self(rawValue: 0x0008)
    /// 0x0009 Connection refused, invalid Source CID.
    public static let invalidSourceCID = Self(rawValue: 0x0009)
    /// 0x000A Connection refused, Source CID already allocated.
    public static let sourceCIDAlreadyAllocated = Self(rawValue: 0x000A)
    /// 0x000B Connection refused, unacceptable parameters.
    public static let unacceptableParameters = Self(rawValue: 0x000B)
    /// Credit Based Connection Request only: MTU, MPS or the number of channels out of range.
    public static let invalidParameters = Self(rawValue: 0x000C)
    /// Credit Based Connection Request only: the final answer follows.
    public static let pending = Self(rawValue: 0x000D)
    /// 0x000E Credit Based Connection Request only: pending, authentication pending.
    public static let authenticationPending = Self(rawValue: 0x000E)
    /// 0x000F Credit Based Connection Request only: pending, authorization pending.
    public static let authorizationPending = Self(rawValue: 0x000F)

    /// 0x000D...0x000F: not the final answer; a further Credit Based Connection Response follows.
    public var isPending: Bool { (0x000D...0x000F).contains(rawValue) }

    /// The spec's wording and the value, e.g. `SPSM not supported (0x0002)`; `result 0x0010` for
    /// values without a name.
    public var description: String {
        let name: String? = switch self {
        case .success: "success"
        case .spsmNotSupported: "SPSM not supported"
        case .noResources: "no resources available"
        case .insufficientAuthentication: "insufficient authentication"
        case .insufficientAuthorization: "insufficient authorization"
        case .encryptionKeySizeTooShort: "encryption key size too short"
        case .insufficientEncryption: "insufficient encryption"
        case .invalidSourceCID: "invalid source CID"
        case .sourceCIDAlreadyAllocated: "source CID already allocated"
        case .unacceptableParameters: "unacceptable parameters"
        case .invalidParameters: "invalid parameters"
        case .pending: "pending, no further information available"
        case .authenticationPending: "pending, authentication pending"
        case .authorizationPending: "pending, authorization pending"
        default: nil
        }
        return name.map { "\($0) (\(l2capHex(rawValue)))" } ?? "result \(l2capHex(rawValue))"
    }
}

/// LE Credit Based Connection Request (0x14): the requester's channel and what it can receive.
package struct LECreditBasedConnectionRequest: Sendable, Hashable {
    package var spsm: UInt16
    package var sourceCID: L2CAPChannelID
    package var mtu: UInt16
    package var mps: UInt16
    package var initialCredits: UInt16

    package init(spsm: UInt16, sourceCID: L2CAPChannelID, mtu: UInt16, mps: UInt16, initialCredits: UInt16) {
        self.spsm = spsm
        self.sourceCID = sourceCID
        self.mtu = mtu
        self.mps = mps
        self.initialCredits = initialCredits
    }

    package init(data: [UInt8]) throws(L2CAPSignalingError) {
        let f = try signalingFields(data, code: .leCreditBasedConnectionRequest, count: 5)
        self.init(spsm: f[0], sourceCID: L2CAPChannelID(f[1]), mtu: f[2], mps: f[3], initialCredits: f[4])
    }

    package func packet(identifier: UInt8) -> LESignalingPacket {
        signalingPacket(.leCreditBasedConnectionRequest, identifier, [spsm, sourceCID.rawValue, mtu, mps, initialCredits])
    }
}

/// LE Credit Based Connection Response (0x15): the responder's channel and what it can receive,
/// or why it refused (then the other fields are zero).
package struct LECreditBasedConnectionResponse: Sendable, Hashable {
    package var destinationCID: L2CAPChannelID
    package var mtu: UInt16
    package var mps: UInt16
    package var initialCredits: UInt16
    package var result: L2CAPCreditBasedResult

    package init(destinationCID: L2CAPChannelID, mtu: UInt16, mps: UInt16, initialCredits: UInt16, result: L2CAPCreditBasedResult) {
        self.destinationCID = destinationCID
        self.mtu = mtu
        self.mps = mps
        self.initialCredits = initialCredits
        self.result = result
    }

    package static func refusal(_ result: L2CAPCreditBasedResult) -> Self {
        Self(destinationCID: L2CAPChannelID(0), mtu: 0, mps: 0, initialCredits: 0, result: result)
    }

    package init(data: [UInt8]) throws(L2CAPSignalingError) {
        let f = try signalingFields(data, code: .leCreditBasedConnectionResponse, count: 5)
        self.init(destinationCID: L2CAPChannelID(f[0]), mtu: f[1], mps: f[2], initialCredits: f[3],
                  result: L2CAPCreditBasedResult(rawValue: f[4]))
    }

    package func packet(identifier: UInt8) -> LESignalingPacket {
        signalingPacket(.leCreditBasedConnectionResponse, identifier, [destinationCID.rawValue, mtu, mps, initialCredits, result.rawValue])
    }
}

/// LE Flow Control Credit (0x16): the sender of this indication may receive `credits` more
/// K-frames on its channel `cid`.
package struct LEFlowControlCredit: Sendable, Hashable {
    package var cid: L2CAPChannelID
    package var credits: UInt16

    package init(cid: L2CAPChannelID, credits: UInt16) {
        self.cid = cid
        self.credits = credits
    }

    package init(data: [UInt8]) throws(L2CAPSignalingError) {
        let f = try signalingFields(data, code: .flowControlCredit, count: 2)
        self.init(cid: L2CAPChannelID(f[0]), credits: f[1])
    }

    package func packet(identifier: UInt8) -> LESignalingPacket {
        signalingPacket(.flowControlCredit, identifier, [cid.rawValue, credits])
    }
}

/// Disconnection Request (0x06) or Response (0x07), which echoes the request's two CIDs: the
/// destination is the receiver's end of the channel, the source the sender's.
package struct L2CAPDisconnection: Sendable, Hashable {
    package var destinationCID: L2CAPChannelID
    package var sourceCID: L2CAPChannelID

    package init(destinationCID: L2CAPChannelID, sourceCID: L2CAPChannelID) {
        self.destinationCID = destinationCID
        self.sourceCID = sourceCID
    }

    package init(data: [UInt8], code: LESignalingCode) throws(L2CAPSignalingError) {
        let f = try signalingFields(data, code: code, count: 2)
        self.init(destinationCID: L2CAPChannelID(f[0]), sourceCID: L2CAPChannelID(f[1]))
    }

    package func request(identifier: UInt8) -> LESignalingPacket {
        signalingPacket(.disconnectionRequest, identifier, [destinationCID.rawValue, sourceCID.rawValue])
    }

    package func response(identifier: UInt8) -> LESignalingPacket {
        signalingPacket(.disconnectionResponse, identifier, [destinationCID.rawValue, sourceCID.rawValue])
    }
}

/// `count` little-endian 16-bit fields, exactly.
private func signalingFields(_ data: [UInt8], code: LESignalingCode, count: Int) throws(L2CAPSignalingError) -> [UInt16] {
    guard data.count == 2 * count else { throw .lengthMismatch(code: code.rawValue, announced: 2 * count, actual: data.count) }
    return data.withUnsafeBytes { bytes in
        var reader = ByteReader(bytes)
        return (0..<count).compactMap { _ in reader.readUInt16() }
    }
}

private func signalingPacket(_ code: LESignalingCode, _ identifier: UInt8, _ fields: [UInt16]) -> LESignalingPacket {
    var writer = ByteWriter(capacity: 2 * fields.count)
    for field in fields { writer.write(field) }
    return LESignalingPacket(code: code.rawValue, identifier: identifier, data: writer.bytes)
}
