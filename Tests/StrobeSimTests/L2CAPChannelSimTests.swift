import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization
import Testing

import StrobeSim

/// Credit-based channels between two Strobe hosts on one simulated air, in virtual time: every
/// SDU arrives in order, and a reader that falls behind holds the sender back instead of losing
/// anything.
@Suite(.timeLimit(.minutes(2))) struct L2CAPChannelSimTests {
    @Test func aSlowReaderThrottlesTheSenderAndLosesNothing() async throws {
        let clock = VirtualClock()
        try await VirtualTimeDriver.run(clock: clock, timeLimit: .seconds(600)) {
            let hosts = try await TwoHosts.linked(clock: clock, name: "Stream")
            let (link, served) = (hosts.link, hosts.served)

            // The reader takes 4 credits' worth at most (MPS 23): a slow app stops the sender.
            var channels = try served.listen(psm: 0x0081, parameters: .init(mtu: 600, mps: 23, initialCredits: 4)).makeAsyncIterator()
            let channel = try await link.openChannel(psm: 0x0081, parameters: .init(mtu: 600, mps: 23, initialCredits: 4))
            let accepted = try #require(await channels.next())
            let count = 300
            let sdus = (0..<count).map { index in (0..<(1 + index * 7 % 600)).map { UInt8((index + $0) % 256) } }
            let reader = Task(executorPreference: clock.executor) {
                var received: [[UInt8]] = []
                for try await sdu in accepted.sdus {
                    received.append(sdu)
                    try await clock.sleep(for: .milliseconds(50))  // the slow app
                    if received.count == count { break }
                }
                return received
            }
            // One reader at a time: a second is told so rather than left waiting for ever.
            try await clock.sleep(for: .milliseconds(1))
            await #expect(throws: L2CAPChannelError.alreadyReading) {
                var second = accepted.sdus.makeAsyncIterator()
                _ = try await second.next()
            }
            let started = clock.now
            for sdu in sdus { try await channel.send(sdu, timeout: .seconds(120)) }
            let sendTime = started.duration(to: clock.now)
            let received = try await reader.value
            #expect(received == sdus)
            // The sender was held back to the reader's pace: all but the last few SDUs waited on it.
            #expect(sendTime >= .milliseconds(50 * (count - 8)), "\(sendTime)")
            channel.close()
            for try await _ in accepted.sdus {}
            #expect(accepted.isClosed && accepted.closeReason == nil)
            _ = try await link.disconnect()
            hosts.world.stop()
        }
    }

    /// A receive handler gets what waited before it was set, then every SDU as it completes, in
    /// order, then the end once; nothing else may read the channel meanwhile.
    @Test func aReceiveHandlerTakesEverySDUInOrderThenTheEnd() async throws {
        let clock = VirtualClock()
        try await VirtualTimeDriver.run(clock: clock, timeLimit: .seconds(600)) {
            let hosts = try await TwoHosts.linked(clock: clock, name: "Stream")
            let (link, served) = (hosts.link, hosts.served)

            var channels = try link.listen(psm: 0x0082, parameters: .init(mtu: 512, mps: 64, initialCredits: 8)).makeAsyncIterator()
            let channel = try await served.openChannel(psm: 0x0082, parameters: .init(mtu: 512, mps: 64, initialCredits: 8))
            let accepted = try #require(await channels.next())
            let sdus = (0..<200).map { index in (0..<(1 + index * 13 % 512)).map { UInt8((index * 3 + $0) % 256) } }
            // Three wait in the channel before there is a handler.
            for sdu in sdus.prefix(3) { try await channel.send(sdu) }
            try await clock.sleep(for: .seconds(1))

            let received = Lock<[[UInt8]]>([])
            let (ends, end) = AsyncStream<L2CAPChannelError?>.makeStream()
            try accepted.receive({ bytes, _ in received.withLock { $0.append(Array(bytes)) } }, ended: { end.yield($0) })
            #expect(received.withLock { $0 } == Array(sdus.prefix(3)))
            #expect(throws: L2CAPChannelError.alreadyReading) { try accepted.receive { _, _ in } }
            await #expect(throws: L2CAPChannelError.alreadyReading) {
                var reader = accepted.sdus.makeAsyncIterator()
                _ = try await reader.next()
            }

            for sdu in sdus.dropFirst(3) { try await channel.send(sdu) }
            channel.close()
            var endings = ends.makeAsyncIterator()
            #expect(try #require(await endings.next()) == nil)
            #expect(received.withLock { $0 } == sdus)
            _ = try await link.disconnect()
            hosts.world.stop()
        }
    }

    /// A handler may close its channel: nothing reaches it after that, and the end comes once,
    /// after it returned.
    @Test func aHandlerThatClosesTheChannelIsToldTheEndAfterItReturns() async throws {
        let clock = VirtualClock()
        try await VirtualTimeDriver.run(clock: clock, timeLimit: .seconds(600)) {
            let hosts = try await TwoHosts.linked(clock: clock, name: "Stream")
            let (link, served) = (hosts.link, hosts.served)

            var channels = try link.listen(psm: 0x0083, parameters: .init(mtu: 100, mps: 64, initialCredits: 8)).makeAsyncIterator()
            let channel = try await served.openChannel(psm: 0x0083, parameters: .init(mtu: 100, mps: 64, initialCredits: 8))
            let accepted = try #require(await channels.next())
            // What the handler saw, and whether the end came while it was inside.
            let log = Lock<(sdus: [UInt8], inside: Bool, endedInside: Bool, ends: Int)>(([], false, false, 0))
            let (ends, end) = AsyncStream<L2CAPChannelError?>.makeStream()
            try accepted.receive({ bytes, _ in
                let count = log.withLock { log in
                    log.inside = true
                    log.sdus.append(bytes[0])
                    return log.sdus.count
                }
                if count == 5 { accepted.close() }
                log.withLock { $0.inside = false }
            }, ended: { error in
                log.withLock { log in
                    log.endedInside = log.inside
                    log.ends += 1
                }
                end.yield(error)
            })
            for index in 0..<10 {
                do { try await channel.send([UInt8(index)]) } catch { break }
            }
            var endings = ends.makeAsyncIterator()
            #expect(try #require(await endings.next()) == nil)
            try await clock.sleep(for: .seconds(1))
            let seen = log.withLock { $0 }
            #expect(seen.sdus == [0, 1, 2, 3, 4])
            #expect(!seen.endedInside && seen.ends == 1)
            #expect(accepted.isClosed)
            _ = try await link.disconnect()
            hosts.world.stop()
        }
    }

    /// Five channels in one enhanced request, each carrying its own SDUs both ways; a sixth is
    /// more than one request may ask for.
    @Test func fiveChannelsOpenInOneRequestAndEachCarriesItsOwnSDUs() async throws {
        let clock = VirtualClock()
        try await VirtualTimeDriver.run(clock: clock, timeLimit: .seconds(600)) {
            let hosts = try await TwoHosts.linked(clock: clock, name: "Stream")
            let (link, served) = (hosts.link, hosts.served)

            let parameters = L2CAPChannelParameters(mtu: 700, mps: 100, initialCredits: 6)
            var incoming = try served.listen(psm: 0x0083, parameters: parameters).makeAsyncIterator()
            await #expect {
                _ = try await link.openChannels(psm: 0x0083, count: 6, parameters: parameters)
            } throws: { error in
                if case .l2cap(.invalidParameters)? = error as? StrobeError { true } else { false }
            }
            let channels = try await link.openChannels(psm: 0x0083, count: 5, parameters: parameters)
            #expect(channels.count == 5 && Set(channels.map(\.cid)).count == 5)
            var accepted: [L2CAPChannel] = []
            for _ in 0..<5 { accepted.append(try #require(await incoming.next())) }
            let sdus = (0..<5).map { channel in (0..<40).map { index in (0..<(1 + (index * 31 + channel) % 700)).map { UInt8((channel + $0) % 256) } } }
            // All ten ends send and read at once.
            let ends = accepted
            let received = try await withThrowingTaskGroup(of: (Int, [[UInt8]]).self) { group in
                for (index, channel) in channels.enumerated() {
                    group.addTask { for sdu in sdus[index] { try await channel.send(sdu) }; return (-1, []) }
                    group.addTask { for sdu in sdus[index].reversed() { try await ends[index].send(sdu) }; return (-1, []) }
                    group.addTask { (index, try await Self.read(40, from: ends[index])) }
                    group.addTask { (index + 5, try await Self.read(40, from: channel)) }
                }
                var received: [Int: [[UInt8]]] = [:]
                for try await (index, sdus) in group where index >= 0 { received[index] = sdus }
                return received
            }
            for index in 0..<5 {
                #expect(received[index] == sdus[index])
                #expect(received[index + 5] == sdus[index].reversed())
            }
            _ = try await link.disconnect()
            hosts.world.stop()
        }
    }

    static func read(_ count: Int, from channel: L2CAPChannel) async throws -> [[UInt8]] {
        var received: [[UInt8]] = []
        for try await sdu in channel.sdus {
            received.append(sdu)
            if received.count == count { break }
        }
        return received
    }
}
