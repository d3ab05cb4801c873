import Foundation
import Strobe

/// `scale`: the receive path with 1, 16 and 256 links at once. Stylus notifications go round the
/// links, their 27-byte ACL fragments interleaved across the links as a controller may deliver
/// them (so every link reassembles while the others do), each link into a ring of its own,
/// drained and decoded after each 64 KiB read. Reports the cost per notification and the
/// memory each idle link takes, as the links grow. Then the simulated world with 1, 4 and 16
/// host controllers of 16 streaming pens each (`ScaleWorld`).
enum ScaleScenario {
    static let linkCounts = [1, 16, 256]
    static let worldControllers = [1, 4, 16]
    static let worldLinksPerController = 16

    static func run(notifications: Int, worldSeconds: Double) async throws -> BenchReport {
        var figures: [String: Double?] = [:]
        var units: [String: String] = [:]
        var perNotification: [Int: Double] = [:]
        var opened: [Int: Double] = [:]
        // The process's one-time allocations (type metadata, lazily made globals) come with the
        // first path opened: made here, so that no link count is charged for them.
        try await ReceivePath(connectionHandle: 1, handler: NotificationRing(capacity: 64, maxValueSize: 512)).close()
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
        if worldSeconds > 0 {
            for controllers in worldControllers {
                let world = try await ScaleWorld.measure(controllers: controllers, linksPerController: worldLinksPerController, seconds: worldSeconds)
                let name = "world\(controllers)x\(worldLinksPerController)"
                figures[name + "NotificationsPerSecond"] = world.notificationsPerSecond
                figures[name + "OfferedPerSecond"] = world.offeredPerSecond
                figures[name + "CPUNanosecondsPerNotification"] = world.cpuNanosecondsPerNotification
                figures[name + "ResidentKilobytesPerLink"] = world.residentKilobytesPerLink
                figures[name + "HeapKilobytesPerLink"] = world.heapKilobytesPerLink
                units[name + "HeapKilobytesPerLink"] = "KiB"
                figures[name + "LostOrDropped"] = Double(world.lostOrDropped)
                units[name + "NotificationsPerSecond"] = "/s"
                units[name + "OfferedPerSecond"] = "/s"
                units[name + "CPUNanosecondsPerNotification"] = "ns"
                units[name + "ResidentKilobytesPerLink"] = "KiB"
            }
        }
        return BenchReport(
            scenario: "scale", figures: figures, units: units,
            notes: ["\(notifications) notifications per link count, round the links; one thread: H4 deframe, HCI controller, "
                    + "central, each link's L2CAP reassembly and ATT bearer, its ring, drain and stylus decode",
                    "heapKilobytesOpened: heap bytes allocated and not freed while the simulated controller and the links open "
                    + "(the rings made before, not counted); heapKilobytesPerIdleLink: what each link past the first adds",
                    "worldCxL: C host controllers with L simulated pens each, every pen 1,000 samples/s (a batch every 8 ms), "
                    + "\(worldSeconds) s on the real clock after 1 s to settle; CPU is the whole process's (both ends of every link "
                    + "and the virtual air) per notification delivered; memory per link, both ends: the heap the links took as they "
                    + "were made and attached, and the resident growth while streaming (rough: the process reuses what earlier worlds freed)"])
    }

    struct Measured {
        var nanoseconds: Double
        var allocations: Double?
        var heapKilobytesOpened: Double?
        var lost: Int
    }

    static func measure(links: Int, notifications: Int) async throws -> Measured {
        let stream = try StylusCapture.h4Stream(links: links, batches: notifications)
        let handles = try LinksDecode.connectionHandles(in: stream)
        let measured = try await LinksDecode.measure(stream, handles: handles)
        return Measured(nanoseconds: measured.nanosecondsPerNotification,
                        allocations: measured.allocations.map { Double($0) / Double(max(measured.notifications, 1)) },
                        heapKilobytesOpened: measured.heapBytesOpened.map { Double($0) / 1024 },
                        // Not taken (dropped in a ring or lost to malformed input), or taken and undecodable.
                        lost: notifications - measured.taken + measured.decodeErrors)
    }
}
