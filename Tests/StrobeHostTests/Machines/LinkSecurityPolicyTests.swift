import StrobeHCI
import StrobeSecurity
import Testing
import StrobeHost

/// A link's security decisions, driven by scripted inputs: no controller, no store, no tasks.
@Suite struct LinkSecurityPolicyTests {
    typealias Policy = LinkSecurityPolicy
    typealias Link = LinkSecurityPolicy.Link

    static func central(pairing: Bool = true, _ onInsufficient: InsufficientSecurityPolicy = .encryptOrPair) -> Policy {
        Policy(role: .central, allowsPairing: pairing, onInsufficientSecurity: onInsufficient)
    }

    static let plain = Link(level: .none, bondKeyLevel: nil)
    static let plainWithJustWorksBond = Link(level: .none, bondKeyLevel: .unauthenticated)
    static let plainWithMITMBond = Link(level: .none, bondKeyLevel: .authenticated)
    static let encrypted = Link(level: .unauthenticated, bondKeyLevel: .unauthenticated)

    @Test func aLinkAlreadyThereNeedsNothing() {
        #expect(Self.central().secure(to: .unauthenticated, Self.encrypted) == .done(.unauthenticated))
        #expect(Self.central(pairing: false).secure(to: .none, Self.plain) == .done(.none))
    }

    @Test func aBondThatGivesTheLevelEncryptsElseTheLinkPairs() {
        let policy = Self.central()
        #expect(policy.secure(to: .unauthenticated, Self.plainWithJustWorksBond) == .encrypt(required: .unauthenticated))
        #expect(policy.secure(to: .authenticated, Self.plainWithJustWorksBond) == .pair(required: .authenticated),
                "a Just Works bond cannot give MITM protection")
        #expect(policy.secure(to: .authenticated, Self.plainWithMITMBond) == .encrypt(required: .authenticated))
        #expect(policy.secure(to: .unauthenticated, Self.plain) == .pair(required: .unauthenticated))
    }

    @Test func withoutPairingOnlyABondHelps() {
        let policy = Self.central(pairing: false)
        #expect(policy.secure(to: .unauthenticated, Self.plain) == .fail(.pairingNotAllowed))
        #expect(policy.secure(to: .unauthenticated, Self.plainWithJustWorksBond) == .encrypt(required: .unauthenticated))
    }

    @Test func aPeripheralPairsForItsOwnCallersEvenWithABondKey() {
        let policy = Policy(role: .peripheral, allowsPairing: true, onInsufficientSecurity: .encryptOrPair)
        // A peripheral's bond key is the central's to use: it asks for security (pairs) instead.
        #expect(policy.secure(to: .unauthenticated, Self.plainWithJustWorksBond) == .pair(required: .unauthenticated))
    }

    @Test func insufficientSecurityOnAPlainLinkAsksForEncryption() {
        #expect(Self.central().insufficientSecurity(Self.plainWithJustWorksBond) == .encrypt(required: .unauthenticated))
        #expect(Self.central().insufficientSecurity(Self.plain) == .pair(required: .unauthenticated))
    }

    @Test func insufficientSecurityOnAnEncryptedLinkAsksForMITMProtection() {
        #expect(Self.central().insufficientSecurity(Self.encrypted) == .pair(required: .authenticated))
        let authenticated = Link(level: .authenticated, bondKeyLevel: .authenticated)
        #expect(Self.central().insufficientSecurity(authenticated)
            == .fail(.insufficientLevel(reached: .authenticated, required: .authenticated)), "nothing more to reach")
    }

    @Test func theAppsPolicyLimitsWhatAnInsufficientSecurityErrorLeadsTo() {
        #expect(Self.central(.fail).insufficientSecurity(Self.plainWithJustWorksBond)
            == .fail(.insufficientLevel(reached: .none, required: .unauthenticated)))
        #expect(Self.central(.encryptOnly).insufficientSecurity(Self.plain) == .fail(.noBond))
        #expect(Self.central(.encryptOnly).insufficientSecurity(Self.plainWithJustWorksBond) == .encrypt(required: .unauthenticated))
        #expect(Self.central(.encryptOnly).insufficientSecurity(Self.encrypted) == .encrypt(required: .authenticated),
                "tried, and the level then checked: a Just Works bond's encryption stays short")
        #expect(Self.central(pairing: false).insufficientSecurity(Self.encrypted) == .fail(.pairingNotAllowed))
    }

    @Test func aPeripheralLeavesThePeersErrorStanding() {
        let policy = Policy(role: .peripheral, allowsPairing: true, onInsufficientSecurity: .encryptOrPair)
        #expect(policy.insufficientSecurity(Self.plain) == .fail(.notCentral))
    }

    @Test func aSecurityRequestIsAnsweredWithTheBondElseAPairingElseARefusal() {
        #expect(Self.central().securityRequested(Self.plainWithJustWorksBond) == .encrypt)
        #expect(Self.central().securityRequested(Self.plain) == .pair)
        #expect(Self.central(pairing: false).securityRequested(Self.plain) == .refuse)
        #expect(Self.central().encryptionForRequestFailed() == .pair, "a peer that lost the bond pairs again")
        #expect(Self.central(pairing: false).encryptionForRequestFailed() == .refuse)
    }
}
