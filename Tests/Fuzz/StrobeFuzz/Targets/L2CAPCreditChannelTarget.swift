import StrobeHost

extension FuzzTarget {
    /// One link's credit-based channels fed a script from the peer and the app: signalling
    /// commands (enhanced ones and reconfiguration too), K-frames, SDUs to send, SDUs consumed,
    /// opens of one or several channels, closes and timeouts, in any order. Every
    /// channel must keep its credits in range and deliver no SDU above its MTU.
    static let l2capCOC = FuzzTarget(
        name: "l2cap-coc", summary: "LE credit-based channels: signalling, credits, SDU segmentation and reassembly",
        run: { input in
            let parameters = L2CAPChannelParameters(mtu: 300, mps: 64, initialCredits: 6)
            let listeners = [UInt16(0x80): L2CAPChannelTable.Listener(parameters: parameters, security: .none)]
            var table = L2CAPChannelTable(receiveWindow: 2)
            var token: UInt64 = 0
            PacketSequence.forEach(input) { step in
                guard let operation = step.first else { return }
                let body = UnsafeRawBufferPointer(rebasing: step.dropFirst())
                let cid = L2CAPChannelID(0x0040 + UInt16(body.first ?? 0) % 64)
                var actions: [L2CAPChannelTable.Action] = []
                switch operation % 6 {
                case 0:
                    if let packet = try? LESignalingPacket(parsing: body),
                       let done = try? table.received(packet, listeners: listeners, level: .none, hasBondKey: false) {
                        actions = done
                    }
                case 1: actions = table.received(kFrame: UnsafeRawBufferPointer(rebasing: body.dropFirst()), on: cid) ?? []
                case 2: actions = (try? table.send(Array(body.dropFirst()), on: cid)) ?? []
                case 3: actions = table.consumed(Int(body.last ?? 1), on: cid)
                case 4:
                    token += 1
                    // A second byte asks for that many channels in one enhanced request.
                    actions = if body.count > 1 {
                        (try? table.openEnhanced(psm: 0x80, count: Int(body[1] % 7), parameters: parameters, token: token)) ?? []
                    } else {
                        (try? table.open(psm: 0x80, parameters: parameters, token: token)) ?? []
                    }
                default: actions = body.count > 1 ? table.responseTimedOut(body[1], after: .seconds(30)) : table.close(cid)
                }
                for action in actions {
                    if case .sdu(let channel, let sdu) = action, sdu.count > 300 {
                        fatalError("channel \(channel) delivered \(sdu.count) bytes above its MTU of 300")
                    }
                }
                for raw in UInt16(0x40)...0x7F {
                    guard let channel = table.channel(L2CAPChannelID(raw)) else { continue }
                    precondition((0...Int(channel.local.initialCredits)).contains(channel.receiveCredits), "receive credits out of range")
                    precondition((0...65535).contains(channel.sendCredits), "send credits out of range")
                }
                precondition(table.openChannels <= 64)
            }
        },
        seeds: { _ in
            let request = LECreditBasedConnectionRequest(spsm: 0x80, sourceCID: L2CAPChannelID(0x40), mtu: 100, mps: 23, initialCredits: 3)
            let credit = LEFlowControlCredit(cid: L2CAPChannelID(0x40), credits: 2)
            let enhanced = CreditBasedConnectionRequest(spsm: 0x80, mtu: 100, mps: 64, initialCredits: 2,
                                                        sourceCIDs: [L2CAPChannelID(0x41), L2CAPChannelID(0x42)])
            let reconfigure = CreditBasedReconfigureRequest(mtu: 200, mps: 80, destinationCIDs: [L2CAPChannelID(0x41)])
            let accepted = CreditBasedConnectionResponse(mtu: 90, mps: 64, initialCredits: 1, result: .noResources,
                                                         destinationCIDs: [L2CAPChannelID(0x50), L2CAPChannelID(0)])
            return [PacketSequence.encode([
                [0] + enhanced.packet(identifier: 3).encoded,
                [0] + reconfigure.packet(identifier: 4).encoded,
                [2, 1] + Array(repeating: 7, count: 150),
                [4, 0, 2],
                [0] + accepted.packet(identifier: 1).encoded,
                [1, 2, 3, 0, 1, 2, 3],
            ]), PacketSequence.encode([
                [0] + request.packet(identifier: 1).encoded,
                [1, 0, 5, 0, 1, 2, 3],
                [1, 0, 4, 5],
                [3, 0, 1],
                [2, 0] + Array(repeating: 9, count: 60),
                [0] + credit.packet(identifier: 2).encoded,
                [5, 0],
            ])]
        })
}
