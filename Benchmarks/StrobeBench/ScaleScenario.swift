import Foundation
import Strobe

/// `scale`: the receive path with 1, 16 and 256 links at once. Stylus notifications go round the
/// links, their 27-byte ACL fragments interleaved across the links as a controller may deliver
/// them (so every link reassembles while the others do), each link into a ring of its own,
/// drained and decoded after each 64 KiB read. Reports the cost per notification and the
/// memory each idle link takes, as the links grow.
enum ScaleScenario {
    static let linkCounts = [1, 16, 256]

    static func run(notifications: Int) async throws -> BenchReport {
        var figures: [String: Double?] = [:]
        var units: [String: String] = [:]
        var perNotification: [Int: Double] = [:]
        var opened: [Int: Double] = [:]
        for links in linkCounts {
            let measured = try await measure(links: links, notifications: notifications)
            perNotification[links] = measured.nanoseconds
            opened[links] = measured.heapKilobytesOpened ?? .nan
            figures["nanosecondsPerNotification\(links)"] = measured.nanoseconds
            figures["allocationsPerNotification\(links)"] = measured.allocations
            figures["heapKilobytesOpened\(links)"] = measured.heapKilobytesOpened
            figures["lostOrMalformed\(links)"] = Double(measured.lost)
            units["nanosecondsPerNotification\(links)"] = "ns"
            units["heapKilobytesOpened\(links)"] = "KiB"
            // What each link past the first adds: the world and controller are in both.
            if links > 1, let one = opened[1], let all = measured.heapKilobytesOpened {
                figures["heapKilobytesPerIdleLink\(links)"] = (all - one) / Double(links - 1)
                units["heapKilobytesPerIdleLink\(links)"] = "KiB"
            }
        }
        if let one = perNotification[1], let most = perNotification[linkCounts.last!] {
            figures["costRatio\(linkCounts.last!)To1"] = most / one
        }
        return BenchReport(
            scenario: "scale", figures: figures, units: units,
            notes: ["\(notifications) notifications per link count, round the links; one thread: H4 deframe, HCI controller, "
                    + "central, each link's L2CAP reassembly and ATT bearer, its ring, drain and stylus decode",
                    "heapKilobytesOpened: heap bytes allocated and not freed while the simulated controller and the links open "
                    + "(the rings made before, not counted); heapKilobytesPerIdleLink: what each link past the first adds"])
    }

    struct Measured {
        var nanoseconds: Double
        var allocations: Double?
        var heapKilobytesOpened: Double?
        var lost: Int
    }

    static func measure(links: Int, notifications: Int) async throws -> Measured {
        let stream = try h4Stream(links: links, notifications: notifications)
        // Room for a read's worth of notifications over all the rings (one 64 KiB read holds about 1,000).
        let capacity = max(64, 4096 / links)
        let rings = (0..<links).map { _ in NotificationRing(capacity: capacity, maxValueSize: 512) }
        let (path, retained) = try await Allocations.retainedBytes {
            try await ReceivePath(connectionHandles: (0..<links).map { UInt16(1 + $0) }, handlers: rings)
        }
        defer { path.close() }
        let heapKilobytesOpened = retained.map { Double($0) / 1024 }
        var consumers = [DecodeScenario.Consumer](repeating: DecodeScenario.Consumer(), count: links)
        let chunkSize = 64 * 1024

        func pass(_ range: Range<Int>) throws {
            try stream.withUnsafeBytes { bytes in
                var offset = range.lowerBound
                while offset < range.upperBound {
                    let end = min(offset + chunkSize, range.upperBound)
                    try path.feed(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), at: HostTime(nanoseconds: nowNanoseconds()))
                    for index in rings.indices { rings[index].drain { consumers[index].take($0) } }
                    offset = end
                }
            }
        }
        // Warm up on the first tenth, measure the rest.
        let split = stream.count / 10 / chunkSize * chunkSize
        try pass(0..<split)
        let warm = consumers.reduce(0) { $0 + $1.notifications }
        let start = nowNanoseconds()
        var elapsed: UInt64 = 0
        let allocations = try Allocations.count {
            try pass(split..<stream.count)
            elapsed = nowNanoseconds() - start
        }
        let taken = consumers.reduce(0) { $0 + $1.notifications }
        let measured = max(taken - warm, 1)
        let dropped = rings.reduce(0) { $0 + Int($1.counters.dropped) }
        let errors = consumers.reduce(0) { $0 + $1.decodeErrors }
        return Measured(nanoseconds: Double(elapsed) / Double(measured), allocations: allocations.map { Double($0) / Double(measured) },
                        heapKilobytesOpened: heapKilobytesOpened, lost: notifications - taken + dropped + errors + path.malformed)
    }

    /// `notifications` stylus batches as H4, batch n on link n mod `links`; each round of one
    /// batch per link sends its fragments interleaved (first fragments of all, then second ...).
    static func h4Stream(links: Int, notifications: Int) throws -> [UInt8] {
        var generators = [StylusCapture.Generator](repeating: StylusCapture.Generator(), count: links)
        var stream: [UInt8] = []
        var batch = 0
        while batch < notifications {
            var round: [[[UInt8]]] = []
            for link in 0..<min(links, notifications - batch) {
                var packets: [[UInt8]] = []
                try generators[link].forEachACLPacket(ofBatch: batch / links, handle: UInt16(1 + link)) { packets.append($0) }
                round.append(packets)
                batch += 1
            }
            for fragment in 0..<(round.map(\.count).max() ?? 0) {
                for packets in round where fragment < packets.count {
                    stream.append(HCIPacketType.acl.rawValue)
                    stream.append(contentsOf: packets[fragment])
                }
            }
        }
        return stream
    }
}
