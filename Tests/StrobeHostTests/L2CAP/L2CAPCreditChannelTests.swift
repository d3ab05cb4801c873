import Testing

import StrobeHost

/// One credit-based channel's data path driven by scripted inputs: segmentation as credits
/// allow, reassembly, credits returned as the app keeps up, and every rule a peer can break.
@Suite struct L2CAPCreditChannelTests {
    typealias Output = L2CAPCreditChannel.Output

    static func channel(mtu: UInt16 = 100, mps: UInt16 = 23, credits: UInt16 = 4, peerMTU: UInt16 = 100, peerMPS: UInt16 = 23,
                        peerCredits: UInt16 = 2, window: Int = 4) -> L2CAPCreditChannel {
        L2CAPCreditChannel(local: .init(mtu: mtu, mps: mps, initialCredits: credits), peerMTU: peerMTU, peerMPS: peerMPS,
                           peerInitialCredits: peerCredits, receiveWindow: window)
    }

    static func frames(_ outputs: [Output]) -> [[UInt8]] {
        outputs.compactMap { if case .kFrame(let frame) = $0 { frame } else { nil } }
    }

    static func receive(_ channel: inout L2CAPCreditChannel, _ frame: [UInt8]) -> [Output] {
        frame.withUnsafeBytes { channel.received(kFrame: $0) }
    }

    @Test func anSDUIsSegmentedIntoKFramesOfAtMostThePeersMPSAsCreditsAllow() throws {
        var channel = Self.channel(peerCredits: 2)
        let sdu = (0..<50).map { UInt8($0) }
        // 2 + 21, then 23, then 6: three K-frames, two credits.
        let first = try channel.send(sdu)
        #expect(first == [.kFrame([50, 0] + sdu[0..<21]), .kFrame(Array(sdu[21..<44]))])
        #expect(channel.sendCredits == 0 && channel.queuedSDUs == 1)
        #expect(channel.receivedCredits(1) == [.kFrame(Array(sdu[44..<50])), .sduSent])
        #expect(channel.queuedSDUs == 0)
    }

    @Test func emptyAndExactlyFittingSDUs() throws {
        var channel = Self.channel(peerCredits: 10)
        #expect(try channel.send([]) == [.kFrame([0, 0]), .sduSent])
        let fits = Array(repeating: UInt8(7), count: 21)
        #expect(try channel.send(fits) == [.kFrame([21, 0] + fits), .sduSent])
        let oneMore = Array(repeating: UInt8(8), count: 22)
        #expect(try channel.send(oneMore) == [.kFrame([22, 0] + oneMore[0..<21]), .kFrame([8]), .sduSent])
    }

    @Test func anSDUAboveThePeersMTUIsRefusedBeforeAnythingIsSent() {
        var channel = Self.channel(peerMTU: 30)
        #expect(throws: L2CAPChannelError.sduTooLong(length: 31, peerMTU: 30)) { try channel.send(Array(repeating: 0, count: 31)) }
        #expect(channel.queuedSDUs == 0)
    }

    @Test func kFramesAreReassembledIntoTheSDU() {
        var channel = Self.channel()
        #expect(Self.receive(&channel, [5, 0, 1, 2]) == [])
        #expect(Self.receive(&channel, [3, 4, 5]) == [.sdu([1, 2, 3, 4, 5]), .credits(2)])
        #expect(channel.unconsumed == 1 && channel.receiveCredits == 4)
    }

    @Test func creditsStopWhileTheAppFallsBehindAndComeBackAsItConsumes() {
        var channel = Self.channel(credits: 2, window: 2)
        #expect(Self.receive(&channel, [1, 0, 0xA]) == [.sdu([0xA]), .credits(1)])
        #expect(Self.receive(&channel, [1, 0, 0xB]) == [.sdu([0xB])])  // two wait for the app: no credit back
        #expect(channel.receiveCredits == 1)
        #expect(Self.receive(&channel, [1, 0, 0xC]) == [.sdu([0xC])])
        #expect(channel.receiveCredits == 0)
        // The peer is stopped until the app has fewer than two waiting.
        #expect(channel.consumed() == [])
        #expect(channel.unconsumed == 2 && channel.receiveCredits == 0)
        #expect(channel.consumed() == [.credits(2)])
        #expect(channel.unconsumed == 1 && channel.receiveCredits == 2)
    }

    @Test func creditsNeverExceedTheInitialGrant() {
        var channel = Self.channel(credits: 10)
        for _ in 0..<100 {
            let outputs = Self.receive(&channel, [0, 0])
            #expect(!outputs.contains { if case .violation = $0 { true } else { false } })
            _ = channel.consumed()
            #expect((0...10).contains(channel.receiveCredits))
        }
    }

    @Test(arguments: [
        ([UInt8](repeating: 0, count: 24), L2CAPChannelError.kFrameExceedsMPS(length: 24, mps: 23)),
        ([1], .truncatedFirstKFrame(length: 1)),
        ([101, 0], .sduExceedsMTU(length: 101, mtu: 100)),
        ([2, 0, 1, 2, 3], .sduOverrun(expected: 2, received: 3)),
    ])
    func aBrokenRuleClosesTheChannel(frame: [UInt8], violation: L2CAPChannelError) throws {
        var channel = Self.channel()
        #expect(Self.receive(&channel, frame) == [.violation(violation)])
        #expect(channel.isClosed)
        #expect(Self.receive(&channel, [0, 0]) == [])
        #expect(throws: L2CAPChannelError.notOpen) { try channel.send([1]) }
    }

    @Test func anOverrunAcrossKFramesClosesTheChannel() {
        var channel = Self.channel()
        #expect(Self.receive(&channel, [3, 0, 1]) == [])
        #expect(Self.receive(&channel, [2, 3, 4]) == [.violation(.sduOverrun(expected: 3, received: 4))])
    }

    @Test func aKFrameBeyondTheCreditsGivenClosesTheChannel() {
        var channel = Self.channel(credits: 2, window: 1)
        #expect(Self.receive(&channel, [1, 0, 1]) == [.sdu([1])])  // the app has not taken it: no credit back
        #expect(Self.receive(&channel, [1, 0, 2]) == [.sdu([2])])
        #expect(Self.receive(&channel, [1, 0, 3]) == [.violation(.kFrameWithoutCredit)])
    }

    @Test func creditsPast65535CloseTheChannel() {
        var channel = Self.channel(peerCredits: 65000)
        #expect(channel.receivedCredits(535) == [])
        #expect(channel.sendCredits == 65535)
        #expect(channel.receivedCredits(1) == [.violation(.creditOverflow(held: 65535, added: 1))])
        #expect(channel.isClosed)
    }

    @Test func zeroCreditsAreIgnored() throws {
        var channel = Self.channel(peerCredits: 0)
        #expect(try channel.send([1]) == [])
        #expect(channel.receivedCredits(0) == [])
        #expect(channel.receivedCredits(1) == [.kFrame([1, 0, 1]), .sduSent])
    }
}
