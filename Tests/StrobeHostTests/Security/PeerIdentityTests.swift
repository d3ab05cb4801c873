import StrobeHCI
import StrobeSecurity
import Testing
import StrobeHost

/// The identity a bond is kept under: the peer's claim only when the address it paired from
/// backs it up.
struct PeerIdentityTests {
    static let staticAddress = BluetoothAddress("F1:F2:F3:F4:F5:C6")!
    static let victim = IdentityAddress(address: BluetoothAddress("C4:11:22:33:44:55")!, isRandom: true)
    static let irk = IdentityResolvingKey(value: Array(0x40..<0x50))

    @Test func aPeerFromAStaticAddressClaimingAnotherIdentityKeepsItsOwn() {
        let checked = PeerIdentity(claimed: Self.victim, irk: Self.irk, pairedFrom: Self.staticAddress, type: .random)
        #expect(checked.identity == IdentityAddress(address: Self.staticAddress, isRandom: true))
        #expect(checked.irk == nil)
        #expect(checked.ignoredClaim?.contains("\(Self.victim.address)") == true)
    }

    @Test func aPeerFromAPublicAddressClaimingAnotherIdentityKeepsItsOwn() {
        let publicAddress = BluetoothAddress("00:1B:DC:01:02:03")!
        let checked = PeerIdentity(claimed: Self.victim, irk: Self.irk, pairedFrom: publicAddress, type: .public)
        #expect(checked.identity == IdentityAddress(address: publicAddress, isRandom: false))
        #expect(checked.irk == nil)
    }

    @Test func aPeerClaimingTheAddressItPairedFromKeepsItsIRK() {
        let own = IdentityAddress(address: Self.staticAddress, isRandom: true)
        let checked = PeerIdentity(claimed: own, irk: Self.irk, pairedFrom: Self.staticAddress, type: .random)
        #expect(checked == PeerIdentity(identity: own, irk: Self.irk, ignoredClaim: nil))
    }

    @Test func aPeerFromAPrivateAddressIsItsIdentityWhenItsIRKResolvesThatAddress() {
        let rpa = ResolvablePrivateAddress.make(with: Self.irk)
        let checked = PeerIdentity(claimed: Self.victim, irk: Self.irk, pairedFrom: rpa, type: .random)
        #expect(checked == PeerIdentity(identity: Self.victim, irk: Self.irk, ignoredClaim: nil, provedByIRK: true))
    }

    @Test func aPeerFromAPrivateAddressItsIRKDoesNotResolveIsNotTaken() {
        let rpa = ResolvablePrivateAddress.make(with: .random())
        let checked = PeerIdentity(claimed: Self.victim, irk: Self.irk, pairedFrom: rpa, type: .random)
        #expect(checked.identity == IdentityAddress(address: rpa, isRandom: true))
        #expect(checked.irk == nil)
        #expect(checked.ignoredClaim != nil)
    }

    @Test func aControllerResolvedAddressIsAnIdentity() {
        let checked = PeerIdentity(claimed: Self.victim, irk: Self.irk, pairedFrom: Self.staticAddress, type: .randomIdentity)
        #expect(checked.identity == IdentityAddress(address: Self.staticAddress, isRandom: true))
        #expect(checked.irk == nil)
    }

    @Test func noClaimIsTheAddressItPairedFrom() {
        let checked = PeerIdentity(claimed: nil, irk: nil, pairedFrom: Self.staticAddress, type: .random)
        #expect(checked == PeerIdentity(identity: IdentityAddress(address: Self.staticAddress, isRandom: true), irk: nil, ignoredClaim: nil))
    }
}

/// A new pairing never quietly replaces a stronger bond.
struct BondWeaknessTests {
    static func bond(_ level: SMPSecurityLevel, secureConnections: Bool = true, keySize: Int = 16) -> Bond {
        Bond(peer: PeerIdentityTests.victim, role: .central, securityLevel: level, secureConnections: secureConnections,
             longTermKey: LongTermKey(value: Array(0..<16), keySize: keySize))
    }

    @Test func lowerLevelLegacyOverSecureConnectionsAndShorterKeysAreWeaker() {
        let stored = Self.bond(.secureConnections)
        #expect(Self.bond(.unauthenticated).weakness(comparedWith: stored)?.contains("unauthenticated") == true)
        #expect(Self.bond(.secureConnections, secureConnections: false).weakness(comparedWith: stored)?.contains("legacy") == true)
        #expect(Self.bond(.secureConnections, keySize: 7).weakness(comparedWith: stored)?.contains("7-octet") == true)
    }

    @Test func anEqualOrStrongerBondIsNotWeaker() {
        #expect(Self.bond(.secureConnections).weakness(comparedWith: Self.bond(.secureConnections)) == nil)
        #expect(Self.bond(.secureConnections).weakness(comparedWith: Self.bond(.unauthenticated)) == nil)
        #expect(Self.bond(.authenticated, secureConnections: false).weakness(comparedWith: Self.bond(.unauthenticated, secureConnections: false)) == nil)
    }
}
