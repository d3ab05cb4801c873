import Testing
import StrobeHCI

private let advertisingReport = bytes("""
    04 3e 1e 02 01 00 01 f5 f4 f3 f2 f1 f0 12 02 01 06 0e 09 42 75 6d 62 6c 65 2d 50 65 72 69 70 68 ce
    """)

@Suite(.timeLimit(.minutes(1))) struct ControllerEventTests {
    @Test func observersSeeEventsFlowControlDoesNotConsume() async throws {
        let (controller, transport) = try await openController()
        let seen = Collector<HCIEvent>()
        let times = Collector<HostTime>()
        let token = controller.addEventHandler { event, time in
            seen.append(event)
            times.append(time)
        }
        transport.deliver(advertisingReport, at: HostTime(nanoseconds: 42))
        transport.deliver(commandComplete(.nop, credits: 1))
        transport.deliver(bytes("04 13 05 01 01 00 01 00"))
        transport.deliver(bytes("04 ff 02 aa bb"))
        transport.deliver(bytes("04 10 01 07"))
        #expect(seen.values.map(\.name) == ["LE Advertising Report", "event 0xFF", "Hardware Error"])
        #expect(times.values.first == HostTime(nanoseconds: 42))
        #expect(controller.counters.unknownEvents == 1 && controller.counters.hardwareErrors == 1)

        controller.removeEventHandler(token)
        transport.deliver(advertisingReport)
        #expect(seen.values.count == 3)
    }

    @Test func malformedEventsAreCountedAndDropped() async throws {
        let (controller, transport) = try await openController()
        let seen = Collector<HCIEvent>()
        controller.addEventHandler { event, _ in seen.append(event) }
        let before = controller.counters.malformedEvents
        transport.deliver(bytes("04 3e 10 02 01 00 01 f5 f4 f3 f2 f1 f0 12 02 01 06 0e 09"))
        transport.deliver(bytes("04 0e 01 01"))
        transport.deliver(bytes("04 13 05 02 01 00 01 00"))
        #expect(controller.counters.malformedEvents == before + 3)
        #expect(controller.lastMalformed == .malformed(
            packet: "Number Of Completed Packets", detail: "2 handles need 8 bytes, 4 left"))
        #expect(seen.values.isEmpty)
        // Still running: a good event after the bad ones goes through.
        transport.deliver(advertisingReport)
        #expect(seen.values.count == 1)
    }

    @Test func eventStreamDeliversInOrderAndFinishesOnClose() async throws {
        let (controller, transport) = try await openController()
        let stream = controller.events()
        transport.deliver(advertisingReport)
        transport.deliver(disconnectionComplete(handle: 1))
        controller.close()
        var names: [String] = []
        for await timed in stream { names.append(timed.event.name) }
        #expect(names == ["LE Advertising Report", "Disconnection Complete"])
    }

    @Test func handlerAddedAfterCloseIsToldAtOnce() async throws {
        let (controller, _) = try await openController()
        controller.close()
        let closes = Collector<HCIError>()
        controller.addEventHandler(onClose: { closes.append($0) }) { _, _ in }
        #expect(closes.values == [.closed(nil)])
    }
}
