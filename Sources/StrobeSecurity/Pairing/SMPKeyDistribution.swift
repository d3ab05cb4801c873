/// Which keys a side distributes after encryption (Core Specification Vol 3, Part H, 3.6.1).
public struct SMPKeyDistribution: OptionSet, Sendable, Hashable {
    /// The Initiator or Responder Key Distribution octet of Pairing Request and Pairing Response.
    public let rawValue: UInt8
    /// Wraps a key distribution octet as carried; bit 3 (LinkKey) and the reserved bits have no name here.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// LE legacy pairing: LTK, EDIV and Rand (Encryption Information, Central Identification).
    public static let encryptionKey = Self(rawValue: 0x01)
    /// IRK and identity address (Identity Information, Identity Address Information).
    public static let identityKey = Self(rawValue: 0x02)
    /// CSRK (Signing Information).
    public static let signingKey = Self(rawValue: 0x04)

    /// The LE keys this stack distributes and takes; the BR/EDR link key bit is never set.
    public static let supported: Self = [.encryptionKey, .identityKey, .signingKey]
}
