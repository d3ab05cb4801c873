import StrobeHCI
import StrobeSecurity

extension FuzzTarget {
    /// SMP PDUs (each a length byte, then the PDU) into a responder's pairing machine and an
    /// initiator's that has sent its Pairing Request, answered as the spec says and never
    /// trapping.
    static let smp = FuzzTarget(
        name: "smp", summary: "Security Manager PDUs into both roles' pairing state machines",
        run: { input in
            let fixed: @Sendable (Int) -> [UInt8] = { [UInt8](repeating: 0x5A, count: $0) }
            let addresses = SMPPairing.Addresses(
                initiator: BluetoothAddress("C0:00:00:00:00:01")!, initiatorType: .random,
                responder: BluetoothAddress("00:11:22:33:44:55")!, responderType: .public)
            var responder = SMPPairing(role: .responder, configuration: .init(ioCapability: .displayYesNo, confirmsJustWorks: true),
                                       addresses: addresses, keyPair: SMPKeyAgreement(random: fixed), random: fixed)
            var initiator = SMPPairing(role: .initiator, configuration: .init(ioCapability: .keyboardDisplay, confirmsJustWorks: true),
                                       addresses: addresses, keyPair: SMPKeyAgreement(random: fixed), random: fixed)
            _ = initiator.start()
            var rest = input[...]
            while let length = rest.first {
                rest = rest.dropFirst()
                let pdu = Array(rest.prefix(Int(length)))
                rest = rest.dropFirst(Int(length))
                _ = responder.receive(pdu)
                _ = initiator.receive(pdu)
                _ = responder.numberConfirmed(true)
                _ = responder.justWorksConfirmed(true)
                _ = initiator.justWorksConfirmed(true)
                _ = initiator.passkeyEntered(123_456)
                _ = responder.encryptionChanged(status: 0)
                _ = initiator.encryptionChanged(status: 0)
            }
        },
        seeds: { _ in
            // Requests and responses as peers send them, a public key, and hostile ones.
            [
                [7, 0x01, 0x03, 0x00, 0x0D, 0x10, 0x07, 0x07],
                [7, 0x02, 0x01, 0x00, 0x0D, 0x10, 0x07, 0x07, 17, 0x03] + [UInt8](repeating: 0x11, count: 16),
                [65, 0x0C] + [UInt8](repeating: 0x01, count: 64),
                [7, 0x01, 0, 0, 0, 0, 0, 0, 2, 0x05, 0x08],
                [3, 0x01, 0x03, 0x00],
            ]
        })
}
