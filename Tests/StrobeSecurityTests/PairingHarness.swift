import StrobeHCI
import StrobeSecurity

/// Two pairing machines wired to each other, with a user at each end and a controller that
/// encrypts only when both sides hold the same key.
struct PairingHarness {
    enum Side { case initiator, responder }

    var initiator: SMPPairing
    var responder: SMPPairing
    /// What each user does: type a passkey (nil: the shown one), confirm a number.
    var typedPasskey: [Side: UInt32] = [:]
    var confirms: [Side: Bool] = [.initiator: true, .responder: true]

    private(set) var results: [Side: SMPPairingResult] = [:]
    private(set) var failures: [Side: SMPPairingError] = [:]
    private(set) var shownPasskey: UInt32?
    private(set) var comparedNumbers: [Side: UInt32] = [:]
    /// The sides whose user was asked to go on with Just Works.
    private(set) var justWorksAsked: Set<Side> = []
    private(set) var sent: [Side: [[UInt8]]] = [:]
    private var pdus: [(to: Side, pdu: [UInt8])] = []
    private var user: [(Side, SMPPairingAction)] = []

    static let centralAddress = BluetoothAddress("C0:00:00:00:00:01")!
    static let peripheralAddress = BluetoothAddress("D0:00:00:00:00:02")!

    static var addresses: SMPPairing.Addresses {
        SMPPairing.Addresses(initiator: centralAddress, initiatorType: .random, responder: peripheralAddress, responderType: .public)
    }

    init(initiator: SMPPairing.Configuration, responder: SMPPairing.Configuration) {
        self.initiator = SMPPairing(role: .initiator, configuration: initiator, addresses: Self.addresses)
        self.responder = SMPPairing(role: .responder, configuration: responder, addresses: Self.addresses)
    }

    mutating func run() {
        handle(.initiator, initiator.start())
        while true {
            if !pdus.isEmpty {
                let (to, pdu) = pdus.removeFirst()
                let actions = to == .initiator ? initiator.receive(pdu) : responder.receive(pdu)
                handle(to, actions)
            } else if !user.isEmpty {
                let (side, question) = user.removeFirst()
                handle(side, answer(question, at: side))
            } else {
                return
            }
        }
    }

    private mutating func answer(_ question: SMPPairingAction, at side: Side) -> [SMPPairingAction] {
        switch question {
        case .enterPasskey:
            let value = typedPasskey[side] ?? shownPasskey
            return side == .initiator ? initiator.passkeyEntered(value) : responder.passkeyEntered(value)
        case .confirmNumber:
            let yes = confirms[side] ?? true
            return side == .initiator ? initiator.numberConfirmed(yes) : responder.numberConfirmed(yes)
        case .confirmJustWorks:
            let yes = confirms[side] ?? true
            return side == .initiator ? initiator.justWorksConfirmed(yes) : responder.justWorksConfirmed(yes)
        default:
            return []
        }
    }

    private mutating func handle(_ side: Side, _ actions: [SMPPairingAction]) {
        let other: Side = side == .initiator ? .responder : .initiator
        for action in actions {
            switch action {
            case .send(let pdu):
                sent[side, default: []].append(pdu.encoded)
                pdus.append((other, pdu.encoded))
            case .displayPasskey(let value):
                shownPasskey = value
            case .enterPasskey:
                user.append((side, action))
            case .confirmNumber(let value):
                comparedNumbers[side] = value
                user.append((side, action))
            case .confirmJustWorks:
                justWorksAsked.insert(side)
                user.append((side, action))
            case .acceptPairing:
                handle(side, responder.accept(true))
            case .startEncryption(let key):
                // The controller's part: the peripheral's host answers LTK Request; the link
                // encrypts only when the keys match.
                let status: UInt8 = responder.keyForEncryption == key ? 0 : 0x06
                handle(.responder, responder.encryptionChanged(status: status))
                handle(.initiator, initiator.encryptionChanged(status: status))
            case .completed(let result):
                results[side] = result
            case .failed(let error):
                failures[side] = error
            }
        }
    }
}
