import StrobeHCI

/// Credit Based Connection Request (0x17, Core Vol 3, Part A, 4.25): up to five channels to one
/// SPSM in one request (enhanced credit-based flow control, ECFC), all with the same MTU, MPS
/// and initial credits.
package struct CreditBasedConnectionRequest: Sendable, Hashable {
    /// The most channels one request may ask for.
    package static let maximumChannels = 5
    /// The smallest MTU and MPS an enhanced channel may have.
    package static let minimumMTU: UInt16 = 64

    package var spsm: UInt16
    package var mtu: UInt16
    package var mps: UInt16
    package var initialCredits: UInt16
    package var sourceCIDs: [L2CAPChannelID]

    package init(spsm: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16, sourceCIDs: [L2CAPChannelID]) {
        self.spsm = spsm
        self.mtu = mtu
        self.mps = mps
        self.initialCredits = initialCredits
        self.sourceCIDs = sourceCIDs
    }

    /// Any number of CIDs parses; how many one may ask for is the receiver's check.
    package init(data: [UInt8]) throws(L2CAPSignalingError) {
        let f = try cidListFields(data, code: .creditBasedConnectionRequest, fixed: 4)
        self.init(spsm: f.fixed[0], mtu: f.fixed[1], mps: f.fixed[2], initialCredits: f.fixed[3], sourceCIDs: f.cids)
    }

    package func packet(identifier: UInt8) -> LESignalingPacket {
        cidListPacket(.creditBasedConnectionRequest, identifier, [spsm, mtu, mps, initialCredits], sourceCIDs)
    }
}

/// Credit Based Connection Response (0x18, 4.26): one destination CID per requested channel,
/// in the request's order, 0x0000 for each one refused.
package struct CreditBasedConnectionResponse: Sendable, Hashable {
    package var mtu: UInt16
    package var mps: UInt16
    package var initialCredits: UInt16
    package var result: L2CAPCreditBasedResult
    package var destinationCIDs: [L2CAPChannelID]

    package init(mtu: UInt16, mps: UInt16, initialCredits: UInt16, result: L2CAPCreditBasedResult, destinationCIDs: [L2CAPChannelID]) {
        self.mtu = mtu
        self.mps = mps
        self.initialCredits = initialCredits
        self.result = result
        self.destinationCIDs = destinationCIDs
    }

    /// Every one of the `count` channels asked for refused: a zero CID for each, none when the
    /// request asked for more than a request may.
    package static func refusal(_ result: L2CAPCreditBasedResult, count: Int) -> Self {
        let cids = count <= CreditBasedConnectionRequest.maximumChannels ? count : 0
        return Self(mtu: 0, mps: 0, initialCredits: 0, result: result, destinationCIDs: Array(repeating: L2CAPChannelID(0), count: cids))
    }

    package init(data: [UInt8]) throws(L2CAPSignalingError) {
        let f = try cidListFields(data, code: .creditBasedConnectionResponse, fixed: 4)
        self.init(mtu: f.fixed[0], mps: f.fixed[1], initialCredits: f.fixed[2], result: L2CAPCreditBasedResult(rawValue: f.fixed[3]),
                  destinationCIDs: f.cids)
    }

    package func packet(identifier: UInt8) -> LESignalingPacket {
        cidListPacket(.creditBasedConnectionResponse, identifier, [mtu, mps, initialCredits, result.rawValue], destinationCIDs)
    }
}

/// Credit Based Reconfigure Request (0x19, 4.27): the sender can now receive SDUs up to `mtu`
/// and K-frames up to `mps` on its channels `destinationCIDs` (its own ends of them).
package struct CreditBasedReconfigureRequest: Sendable, Hashable {
    package var mtu: UInt16
    package var mps: UInt16
    package var destinationCIDs: [L2CAPChannelID]

    package init(mtu: UInt16, mps: UInt16, destinationCIDs: [L2CAPChannelID]) {
        self.mtu = mtu
        self.mps = mps
        self.destinationCIDs = destinationCIDs
    }

    package init(data: [UInt8]) throws(L2CAPSignalingError) {
        let f = try cidListFields(data, code: .creditBasedReconfigureRequest, fixed: 2)
        self.init(mtu: f.fixed[0], mps: f.fixed[1], destinationCIDs: f.cids)
    }

    package func packet(identifier: UInt8) -> LESignalingPacket {
        cidListPacket(.creditBasedReconfigureRequest, identifier, [mtu, mps], destinationCIDs)
    }
}

/// The outcome of a Credit Based Reconfigure Request (4.28).
package struct CreditBasedReconfigureResult: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    package var rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    package static let success = Self(rawValue: 0x0000)
    package static let mtuReduced = Self(rawValue: 0x0001)
    package static let mpsReducedOnSeveralChannels = Self(rawValue: 0x0002)
    package static let invalidDestinationCID = Self(rawValue: 0x0003)
    package static let unacceptableParameters = Self(rawValue: 0x0004)

    package var description: String {
        let name: String? = switch self {
        case .success: "success"
        case .mtuReduced: "reduction in size of MTU not allowed"
        case .mpsReducedOnSeveralChannels: "reduction in size of MPS not allowed for more than one channel at a time"
        case .invalidDestinationCID: "one or more destination CIDs invalid"
        case .unacceptableParameters: "other unacceptable parameters"
        default: nil
        }
        return name.map { "\($0) (\(l2capHex(rawValue)))" } ?? "result \(l2capHex(rawValue))"
    }

    /// Credit Based Reconfigure Response (0x1A): the result alone.
    package func packet(identifier: UInt8) -> LESignalingPacket {
        cidListPacket(.creditBasedReconfigureResponse, identifier, [rawValue], [])
    }

    package init(data: [UInt8]) throws(L2CAPSignalingError) {
        guard data.count == 2 else { throw .lengthMismatch(code: LESignalingCode.creditBasedReconfigureResponse.rawValue, announced: 2, actual: data.count) }
        self.init(rawValue: UInt16(data[0]) | UInt16(data[1]) << 8)
    }
}

/// `fixed` little-endian 16-bit fields, then a list of CIDs: an odd length is malformed.
private func cidListFields(_ data: [UInt8], code: LESignalingCode, fixed: Int) throws(L2CAPSignalingError)
    -> (fixed: [UInt16], cids: [L2CAPChannelID]) {
    guard data.count >= 2 * fixed, data.count % 2 == 0 else {
        throw .badCIDList(code: code.rawValue, minimum: 2 * fixed, actual: data.count)
    }
    let words = data.withUnsafeBytes { bytes in
        var reader = ByteReader(bytes)
        return (0..<data.count / 2).compactMap { _ in reader.readUInt16() }
    }
    return (Array(words[..<fixed]), words[fixed...].map { L2CAPChannelID($0) })
}

private func cidListPacket(_ code: LESignalingCode, _ identifier: UInt8, _ fields: [UInt16], _ cids: [L2CAPChannelID]) -> LESignalingPacket {
    var writer = ByteWriter(capacity: 2 * (fields.count + cids.count))
    for field in fields { writer.write(field) }
    for cid in cids { writer.write(cid.rawValue) }
    return LESignalingPacket(code: code.rawValue, identifier: identifier, data: writer.bytes)
}
