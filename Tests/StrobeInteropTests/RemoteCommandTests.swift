import Foundation
import Testing

/// `strobe remote events` and `strobe shoot --trigger remote|grip` on the simulated world's AB
/// Shutter3 (HID over GATT, encryption required: the command pairs first) and grip: the shoot
/// family's process boundary through the built tool, its remote-triggered run in virtual time.
@Suite(.timeLimit(.minutes(5))) struct RemoteCommandTests {
    @Test func remoteEventsPrintsEachPressAndReleaseThenASummary() async throws {
        // By name, so that the scan ends at the remote's first advertisement, however late a busy
        // machine starts the world (the default picks the strongest after a 2 s scan).
        let result = try await StrobeCommand.run(["remote", "events", "--name", "AB Shutter3", "--scan-ms", "30000", "--count", "3", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try JSONLines.objects(result.stdout)
        let events = lines.filter { $0["event"] != nil }
        #expect(events.map { $0["event"] as? String } == ["press", "release", "press", "release", "press", "release"])
        #expect(events.allSatisfy { $0["usage"] as? String == "consumer:0x00e9" })
        let times = events.compactMap { $0["t"] as? Double }
        #expect(times.first == 0 && times == times.sorted())
        #expect(Set(events.flatMap(\.keys)) == ["t", "event", "usage"])
        let summary = try #require(lines.last)
        #expect(summary["presses"] as? Int == 3 && summary["releases"] as? Int == 3 && summary["malformed"] as? Int == 0)
    }

    /// Every press is a shot, and every shot is captured: in virtual time the world's remote
    /// presses every 0.3 s of its own time and nothing else competes, so 20 presses make 20
    /// shots, each lit after its press.
    @Test func shootFollowsTheRemote() async throws {
        let ran = try await InProcessCommand.run(["shoot", "--trigger", "remote", "--count", "20", "--ack-deadline-ms", "5000", "--json"])
        #expect(ran.status == 0, "\(ran.stderr)")
        let lines = try JSONLines.objects(ran.stdout)
        let summary = try #require(lines.last?["summary"] as? [String: Any], "\(ran.stderr)")
        #expect(summary["shots"] as? Int == 20)
        #expect(summary["outcomes"] as? [String: Int] == ["captured": 20])
        let shots = lines.dropLast()
        #expect(shots.compactMap { $0["shot"] as? Int } == Array(1...20))
        let triggers = shots.compactMap { $0["triggerReceived"] as? Int }
        #expect(triggers.count == 20 && triggers == triggers.sorted(), "one record per press, in order")
        // Each shot's trigger is the press: its flashes acknowledged after it, on the same clock.
        let lit = shots.compactMap { shot -> Int? in
            guard let trigger = shot["triggerReceived"] as? Int, let flashes = shot["flashes"] as? [[String: Any]] else { return nil }
            return flashes.compactMap { $0["acknowledged"] as? Int }.min().map { $0 - trigger }
        }
        #expect(lit.count == 20 && lit.allSatisfy { $0 > 0 && $0 < 5_000_000_000 }, "\(lit)")
    }

    /// The grip as the trigger: the standard world's grip presses its shutter button once after
    /// a host subscribes, and that press is the shot's trigger.
    @Test func shootFollowsTheGrip() async throws {
        let result = try await StrobeCommand.run(["shoot", "--trigger", "grip", "--count", "1", "--ack-deadline-ms", "5000", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try JSONLines.objects(result.stdout)
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["shots"] as? Int == 1 && (summary["outcomes"] as? [String: Int]) == ["captured": 1], "\(summary)")
        let shot = try #require(lines.first)
        let trigger = try #require(shot["triggerReceived"] as? Int)
        let acknowledged = (shot["flashes"] as? [[String: Any]])?.compactMap { $0["acknowledged"] as? Int } ?? []
        #expect(!acknowledged.isEmpty && acknowledged.allSatisfy { $0 > trigger }, "the flashes lit after the press")
    }
}
