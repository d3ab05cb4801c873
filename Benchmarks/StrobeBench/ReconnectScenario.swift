import Foundation
import Histogram
import Strobe
import StrobeSim
import Synchronization

/// `reconnect`: a bonded grip comes back (as grips do at the next press after ending an idle
/// link): the time from the new link's `connect()` returning to its first event reaching the
/// app, with the database taken from the bond (one Database Hash read) and without (discovered
/// again), alternating, on the simulated world in real time (each ATT round trip costs
/// connection events, as on the air). The grip sends its first event the moment it sees the
/// subscription: restored from its bond on encryption, or written by the host.
enum ReconnectScenario {
    static func run(rounds: Int) async throws -> BenchReport {
        var grip = SimulatedDeviceDescription(kind: .grip, name: "Grip-S1", rssi: -60)
        grip.firmware = "1.4.0"
        grip.gripEvents = [.init(after: 0, code: 0x01)]
        let world = SimWorld(scenario: SimScenario(devices: [grip]), clock: ContinuousClock())
        try await world.start()
        defer { world.stop() }
        let store = InMemoryBondStore()
        let host = try await BluetoothHost(transport: world.makeHostController(), configuration: .init(bondStore: store))
        defer { host.close() }
        let central = host.central

        // The first link pairs and keeps the database with the bond.
        _ = try await link(central)
        var timings: [Bool: Histogram<UInt64>] = [
            true: Histogram(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three),
            false: Histogram(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three),
        ]
        var requests: [Bool: [Int]] = [true: [], false: []]
        for round in 0..<(2 * rounds) {
            let cached = round % 2 == 0
            if !cached, var bond = store.bonds().first {
                bond.peerDatabase = nil
                store.save(bond)
            }
            let (nanoseconds, fromCache, count) = try await link(central, device: world.devices[0])
            guard fromCache == cached else {
                throw BumbleProcess.Failure(description: "round \(round): the cache was \(fromCache ? "" : "not ")used")
            }
            timings[cached]!.record(nanoseconds)
            requests[cached]!.append(count)
        }
        func figure(_ cached: Bool, _ percentile: Double) -> Double { Double(timings[cached]!.valueAtPercentile(percentile)) }
        func median(_ values: [Int]) -> Double? { values.isEmpty ? nil : Double(values.sorted()[values.count / 2]) }
        return BenchReport(
            scenario: "reconnect",
            figures: [
                "rounds": Double(rounds),
                "connectedToFirstEventCachedP50": figure(true, 50),
                "connectedToFirstEventCachedMax": Double(timings[true]!.max),
                "connectedToFirstEventDiscoveredP50": figure(false, 50),
                "connectedToFirstEventDiscoveredMax": Double(timings[false]!.max),
                "attRequestsCachedMedian": median(requests[true]!),
                "attRequestsDiscoveredMedian": median(requests[false]!),
            ],
            units: ["connectedToFirstEventCachedP50": "ns", "connectedToFirstEventCachedMax": "ns",
                    "connectedToFirstEventDiscoveredP50": "ns", "connectedToFirstEventDiscoveredMax": "ns"],
            notes: ["from connect() returning to the grip's first event at the app's handler; the simulated air sends each packet at its link's next connection event, so each ATT round trip costs connection events",
                    "attRequests*: requests the grip's server answered on the link (the cached link reads the hash instead of discovering)"])
    }

    /// One link: connects, attaches the grip, waits for its first event, disconnects; returns the
    /// time from `connect()` returning to the event, whether the cache was used and the grip's request count.
    private static func link(_ central: Central, device: SimulatedDevice? = nil) async throws -> (UInt64, Bool, Int) {
        let connection = try await central.connect(name: "Grip-S1")
        let connected = nowNanoseconds()
        let firstEvent = Atomic<UInt64>(0)
        let (arrived, signal) = AsyncStream.makeStream(of: Void.self)
        _ = try await Grip.attach(to: connection) { _ in
            if firstEvent.compareExchange(expected: 0, desired: nowNanoseconds(), ordering: .relaxed).exchanged { signal.yield() }
        }
        var iterator = arrived.makeAsyncIterator()
        _ = await iterator.next()
        let requests = device?.peripheralConnections.first?.server?.counters.requests.values.reduce(0, +) ?? 0
        let fromCache = connection.databaseFromCache
        _ = try await connection.disconnect()
        return (firstEvent.load(ordering: .relaxed) - connected, fromCache, requests)
    }
}
