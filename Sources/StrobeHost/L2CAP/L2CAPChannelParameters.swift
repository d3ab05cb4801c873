/// What one side can receive: the largest SDU (MTU), the largest K-frame payload (MPS), and
/// the credits it gives at the start.
public struct L2CAPChannelParameters: Sendable, Hashable {
    /// The largest SDU, in bytes (at least 23).
    public var mtu: UInt16
    /// The largest K-frame information payload, in bytes (23...65533); the first K-frame of an
    /// SDU spends 2 of them on the SDU length.
    public var mps: UInt16
    /// The K-frames the other side may send at the start; receive credits are topped back up to
    /// this number once half are used.
    public var initialCredits: UInt16

    /// Creates parameters without checking them; `isValid` says whether they are in the spec's ranges.
    public init(mtu: UInt16, mps: UInt16, initialCredits: UInt16) {
        self.mtu = mtu
        self.mps = mps
        self.initialCredits = initialCredits
    }

    /// SDUs up to 2048 bytes in K-frames that fit one LE ACL packet of 251 bytes, with
    /// credits for a few such SDUs.
    public static let standard = L2CAPChannelParameters(mtu: 2048, mps: 247, initialCredits: 32)

    /// Core Vol 3, Part A, 4.22: MTU and MPS at least 23, MPS at most 65533.
    public var isValid: Bool { mtu >= 23 && (23...65533).contains(mps) }
}
