import Foundation
import Testing

/// `strobe remote events` and `strobe shoot --trigger remote|grip` on the simulated world's AB
/// Shutter3 (HID over GATT, encryption required: the command pairs first) and grip.
@Suite(.timeLimit(.minutes(2))) struct RemoteCommandTests {
    @Test func remoteEventsPrintsEachPressAndReleaseThenASummary() async throws {
        let result = try await StrobeCommand.run(["remote", "events", "--count", "3", "--json"])
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

    /// Every press is a shot: captured, or `busy` when it came while the one before was still
    /// running (the real-time world keeps pressing every 0.3 s, and a loaded machine can hold a
    /// shot that long; on an idle one all 20 are captured). The ack deadline is one a loaded
    /// machine does not miss: this checks following, not speed.
    @Test func shootFollowsTheRemote() async throws {
        let result = try await StrobeCommand.run(["shoot", "--trigger", "remote", "--count", "20", "--ack-deadline-ms", "5000", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try JSONLines.objects(result.stdout)
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["shots"] as? Int == 20)
        let outcomes = try #require(summary["outcomes"] as? [String: Int])
        #expect(Set(outcomes.keys).isSubset(of: ["captured", "busy"]) && (outcomes["captured"] ?? 0) > 0, "\(outcomes)")
        // A busy record is printed at once, so it can come before the running shot's own record.
        let shots = lines.dropLast()
        #expect(Set(shots.compactMap { $0["shot"] as? Int }) == Set(1...20))
        let triggers = shots.compactMap { $0["triggerReceived"] as? Int }
        #expect(Set(triggers).count == 20, "one record per press")
        // Each captured shot's trigger is the press: its flashes acknowledged after it, on the same clock.
        let lit = shots.filter { $0["outcome"] as? String == "captured" }.compactMap { shot -> Int? in
            guard let trigger = shot["triggerReceived"] as? Int, let flashes = shot["flashes"] as? [[String: Any]] else { return nil }
            return flashes.compactMap { $0["acknowledged"] as? Int }.min().map { $0 - trigger }
        }
        #expect(lit.count == outcomes["captured"] && lit.allSatisfy { $0 > 0 && $0 < 5_000_000_000 }, "\(lit)")
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
