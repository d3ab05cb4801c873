import StrobeHCI
import StrobeSecurity
import Testing
import StrobeHost

/// What becomes of a pairing's keys, driven by scripted inputs: no store, no delegate, no clock.
@Suite struct BondSettlementTests {
    static let staticAddress = BluetoothAddress("F1:F2:F3:F4:F5:C6")!
    static let identity = IdentityAddress(address: staticAddress, isRandom: true)
    static let victim = IdentityAddress(address: BluetoothAddress("C4:11:22:33:44:55")!, isRandom: true)
    static let irk = IdentityResolvingKey(value: Array(0x40..<0x50))
    static let otherIRK = IdentityResolvingKey(value: Array(0x60..<0x70))
    static let key = LongTermKey(value: Array(0x10..<0x20))
    static let storeFull = BondStoreError.unwritable(path: "bonds.json", reason: "disk full")

    static func result(level: SMPSecurityLevel = .authenticated, bonded: Bool = true, claimed: IdentityAddress? = nil,
                       irk: IdentityResolvingKey? = nil) -> SMPPairingResult {
        SMPPairingResult(method: .numericComparison, secureConnections: true, keySize: 16, securityLevel: level, bonded: bonded,
                         longTermKey: key, peerIRK: irk, peerIdentity: claimed, peerCSRK: nil, localCSRK: nil,
                         keysExchanged: ["LTK", "peer IRK", "peer identity address"])
    }

    static func stored(level: SMPSecurityLevel = .authenticated, irk: IdentityResolvingKey? = nil,
                       peer: IdentityAddress = identity) -> Bond {
        Bond(peer: peer, role: .central, securityLevel: level, secureConnections: true, longTermKey: key, peerIRK: irk)
    }

    static func saveAction(_ actions: [BondSettlement.Action]) -> (Bond, Bond?, BluetoothAddress?)? {
        for case .save(let bond, let existing, let removing) in actions { return (bond, existing, removing) }
        return nil
    }

    @Test func aPairingWithoutABondOrAStoreEndsAtOnce() {
        let unbonded = BondSettlement(Self.result(bonded: false), peer: Self.staticAddress, peerType: .random, role: .central)
        #expect(unbonded.start(storing: true) == [.finish(.success(Self.result(bonded: false)))])
        let noStore = BondSettlement(Self.result(), peer: Self.staticAddress, peerType: .random, role: .central)
        #expect(noStore.start(storing: false) == [.finish(.success(Self.result()))])
    }

    @Test func aNewBondIsSavedUnderTheIdentityAndProven() {
        var settlement = BondSettlement(Self.result(claimed: Self.identity, irk: Self.irk), peer: Self.staticAddress, peerType: .random, role: .central)
        #expect(settlement.start(storing: true) == [.lookUp(Self.staticAddress)])
        let save = Self.saveAction(settlement.found(.success(nil)))
        #expect(save?.0.peer == Self.identity && save?.0.peerIRK == Self.irk && save?.0.role == .central)
        #expect(save?.1 == nil && save?.2 == nil, "nothing replaced, no connection-address bond to remove")
        #expect(settlement.saved(.success(true)) == [.stored(Self.identity), .finish(.success(Self.result(claimed: Self.identity, irk: Self.irk)))])
    }

    @Test func anIdentityClaimTheAddressDoesNotBackIsIgnoredAndItsKeysDropped() {
        let settlement = BondSettlement(Self.result(claimed: Self.victim, irk: Self.irk), peer: Self.staticAddress, peerType: .random, role: .peripheral)
        let actions = settlement.start(storing: true)
        #expect(actions.count == 2)
        guard case .identityClaimIgnored(let reason) = actions.first else { Issue.record("no claim ignored"); return }
        #expect(reason.contains("\(Self.victim)"))
        #expect(actions.last == .lookUp(Self.staticAddress), "the bond is looked up under the address it paired from")
        #expect(settlement.bond?.peerIRK == nil && settlement.bond?.keys == ["LTK"])
    }

    @Test func aPrivateAddressProvedByItsIRKReplacesTheConnectionAddressBond() {
        let rpa = ResolvablePrivateAddress.make(with: Self.irk)
        var settlement = BondSettlement(Self.result(claimed: Self.victim, irk: Self.irk), peer: rpa, peerType: .random, role: .central)
        #expect(settlement.start(storing: true) == [.lookUp(Self.victim.address)])
        let save = Self.saveAction(settlement.found(.success(nil)))
        #expect(save?.0.peer == Self.victim && save?.2 == rpa, "the bond under the private address gives way")
    }

    @Test func aWeakerBondNeedsTheAppsWordAndIsRefusedWithoutIt() {
        var settlement = BondSettlement(Self.result(level: .unauthenticated), peer: Self.staticAddress, peerType: .random, role: .central)
        _ = settlement.start(storing: true)
        let existing = Self.stored(level: .authenticated)
        let asked = settlement.found(.success(existing))
        guard case .askToReplace(let stored, let bond, let reason) = asked.first, asked.count == 1 else {
            Issue.record("not asked: \(asked)"); return
        }
        #expect(stored == existing && bond.securityLevel == .unauthenticated && reason.contains("security"))
        #expect(settlement.answered(nil) == [.refuse(.bondReplacementRefused(peer: Self.identity, reason: reason))], "no delegate is no")
        #expect(settlement.answered(false) == [.refuse(.bondReplacementRefused(peer: Self.identity, reason: reason))])
        let save = Self.saveAction(settlement.answered(true))
        #expect(save?.0 == bond && save?.1 == existing, "saved only if the stored bond is still the one the app saw")
    }

    @Test func anotherIRKFromAPrivateAddressNeedsTheAppsWord() {
        let rpa = ResolvablePrivateAddress.make(with: Self.otherIRK)
        var settlement = BondSettlement(Self.result(claimed: Self.identity, irk: Self.otherIRK), peer: rpa, peerType: .random, role: .central)
        _ = settlement.start(storing: true)
        let asked = settlement.found(.success(Self.stored(irk: Self.irk)))
        guard case .askToReplace(_, _, let reason) = asked.first else { Issue.record("not asked: \(asked)"); return }
        #expect(reason.contains("IRK"))
    }

    @Test func anEqualBondReplacesTheStoredOneWithoutAsking() {
        var settlement = BondSettlement(Self.result(), peer: Self.staticAddress, peerType: .random, role: .central)
        _ = settlement.start(storing: true)
        let existing = Self.stored(level: .authenticated)
        #expect(Self.saveAction(settlement.found(.success(existing)))?.1 == existing)
    }

    @Test func aStoreThatFailsEndsThePairingWithoutTheBond() {
        var settlement = BondSettlement(Self.result(), peer: Self.staticAddress, peerType: .random, role: .central)
        _ = settlement.start(storing: true)
        #expect(settlement.found(.failure(Self.storeFull)) == [.finish(.failure(.bondNotStored(Self.storeFull)))])
        _ = settlement.found(.success(nil))
        #expect(settlement.saved(.failure(Self.storeFull)) == [.finish(.failure(.bondNotStored(Self.storeFull)))],
                "no .stored: the peer proved no bond")
    }

    @Test func aBondChangedMeanwhileIsRefused() {
        var settlement = BondSettlement(Self.result(), peer: Self.staticAddress, peerType: .random, role: .central)
        _ = settlement.start(storing: true)
        _ = settlement.found(.success(nil))
        #expect(settlement.saved(.success(false))
            == [.refuse(.bondReplacementRefused(peer: Self.identity, reason: "the stored bond changed while pairing"))])
    }

    @Test func inputsWithoutABondDoNothing() {
        var settlement = BondSettlement(Self.result(bonded: false), peer: Self.staticAddress, peerType: .random, role: .central)
        #expect(settlement.found(.success(nil)).isEmpty && settlement.answered(true).isEmpty && settlement.saved(.success(true)).isEmpty)
    }
}
