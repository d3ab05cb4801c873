import StrobeHCI
import StrobeSecurity
import Testing
import StrobeHost

/// A link's encryption outside pairing, driven by scripted inputs: no controller, no clock, no
/// tasks.
@Suite struct LinkEncryptionTests {
    typealias Machine = LinkEncryption<Int>

    static let identity = IdentityAddress(address: BluetoothAddress("C4:5E:00:00:00:09")!, isRandom: true)
    static let legacyKey = LongTermKey(value: Array(0xA0...0xAF), ediv: 0xB1B2, rand: 0xA0A1_A2A3_A4A5_A6A7)
    static let bond = Machine.BondKey(key: legacyKey, level: .authenticated, identity: identity)

    @Test func aBondsKeyEncryptsAndProvesTheBond() {
        var machine = Machine()
        #expect(machine.encrypt(1, with: Self.bond) == [.sendEnableEncryption(Self.legacyKey, for: 1)])
        #expect(machine.level == .none && machine.provenBond == nil, "nothing is proven before Encryption Change")
        #expect(machine.encryptionChanged(status: .success, enabled: true) == [.announce(.authenticated), .finish(1, .success(.authenticated))])
        #expect(machine.level == .authenticated && machine.provenBond == Self.identity)
    }

    @Test func aPeerWithoutTheKeyFailsTheWaitAndProvesNothing() {
        var machine = Machine()
        _ = machine.encrypt(1, with: Self.bond)
        #expect(machine.encryptionChanged(status: .pinOrKeyMissing, enabled: false) == [.finish(1, .failure(.failed(.pinOrKeyMissing)))])
        #expect(machine.level == .none && machine.provenBond == nil)
        // A later Encryption Change (another cause) finds no wait and no pending bond.
        #expect(machine.encryptionChanged(status: .success, enabled: true) == [.announce(.none)])
        #expect(machine.provenBond == nil)
    }

    @Test func aSecondEncryptSupersedesTheFirstWait() {
        var machine = Machine()
        _ = machine.encrypt(1, with: Self.bond)
        #expect(machine.encrypt(2, with: Self.bond) == [.finish(1, .failure(.superseded)), .sendEnableEncryption(Self.legacyKey, for: 2)])
        // The first command's late failure is not the second wait's.
        #expect(machine.encryptionCommandFailed(.commandFailed(.leEnableEncryption, .commandDisallowed), for: 1).isEmpty)
        #expect(machine.encryptionChanged(status: .success, enabled: true).last == .finish(2, .success(.authenticated)))
    }

    @Test func aRefusedCommandEndsTheWaitWithTheControllersStatus() {
        var machine = Machine()
        _ = machine.encrypt(1, with: Self.bond)
        #expect(machine.encryptionCommandFailed(.commandFailed(.leEnableEncryption, .commandDisallowed), for: 1)
            == [.finish(1, .failure(.failed(.commandDisallowed)))])
        _ = machine.encrypt(2, with: Self.bond)
        let silent = HCIError.commandTimeout(.leEnableEncryption, after: .seconds(2))
        #expect(machine.encryptionCommandFailed(silent, for: 2) == [.finish(2, .failure(.command(silent)))])
        #expect(machine.encryptionCommandFailed(silent, for: 2).isEmpty, "nobody waits any more")
        #expect(machine.encryptionChanged(status: .success, enabled: true) == [.announce(.none)], "the failed key proves nothing")
    }

    @Test func encryptionTurnedOffMakesTheLinkPlainAgain() {
        var machine = Machine()
        _ = machine.encrypt(1, with: Self.bond)
        _ = machine.encryptionChanged(status: .success, enabled: true)
        #expect(machine.encryptionChanged(status: .success, enabled: false) == [.announce(.none)])
        #expect(machine.level == .none && machine.provenBond == nil)
    }

    @Test func aPeripheralAnswersWithThePairingsKeyOrTheBondEDIVAndRandName() {
        var machine = Machine()
        let stk = LongTermKey(value: Array(0x10...0x1F))
        #expect(machine.longTermKeyRequested(ediv: 0, rand: 0, pairingKey: stk, bond: Self.bond) == [.replyWithKey(stk)])
        #expect(machine.longTermKeyRequested(ediv: 0xB1B2, rand: 0xA0A1_A2A3_A4A5_A6A7, pairingKey: nil, bond: Self.bond)
            == [.replyWithKey(Self.legacyKey)])
        #expect(machine.encryptionChanged(status: .success, enabled: true) == [.announce(.authenticated)])
        #expect(machine.provenBond == Self.identity)
    }

    @Test func aPeripheralRefusesAKeyItCannotName() {
        var machine = Machine()
        #expect(machine.longTermKeyRequested(ediv: 0xB1B3, rand: 0xA0A1_A2A3_A4A5_A6A7, pairingKey: nil, bond: Self.bond) == [.replyWithoutKey])
        #expect(machine.longTermKeyRequested(ediv: 0, rand: 0, pairingKey: nil, bond: nil) == [.replyWithoutKey])
        // A pairing's key goes only to a request naming none (EDIV and Rand zero).
        #expect(machine.longTermKeyRequested(ediv: 1, rand: 0, pairingKey: LongTermKey(value: Array(0x10...0x1F)), bond: nil) == [.replyWithoutKey])
        #expect(machine.encryptionChanged(status: .success, enabled: true) == [.announce(.none)], "no bond proven, no level")
        #expect(machine.provenBond == nil)
    }

    @Test func aPairingsLevelAndBondComeFromTheOwner() {
        var machine = Machine()
        _ = machine.encrypt(1, with: Self.bond)
        _ = machine.encryptionChanged(status: .success, enabled: true)
        machine.pairingEncrypted()
        #expect(machine.provenBond == nil, "a new pairing's keys prove no bond until it is stored")
        machine.paired(level: .secureConnections)
        machine.bondStored(Self.identity)
        #expect(machine.level == .secureConnections && machine.provenBond == Self.identity)
    }

    @Test func theLinksEndFailsTheWaitAndRefusesTheNext() {
        var machine = Machine()
        _ = machine.encrypt(1, with: Self.bond)
        #expect(machine.linkClosed() == [.finish(1, .failure(.disconnected))])
        #expect(machine.encrypt(2, with: Self.bond) == [.finish(2, .failure(.disconnected))])
        #expect(machine.linkClosed().isEmpty)
    }
}
