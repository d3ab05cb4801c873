import Foundation
import Testing

/// `strobe remote events` and `strobe shoot --trigger remote` on the simulated world's AB
/// Shutter3 (HID over GATT, encryption required: the command pairs first).
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

    @Test func shootFollowsTheRemote() async throws {
        let result = try await StrobeCommand.run(["shoot", "--trigger", "remote", "--count", "20", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try JSONLines.objects(result.stdout)
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["shots"] as? Int == 20)
        #expect((summary["outcomes"] as? [String: Any])?["captured"] as? Int == 20)
        // Each shot's trigger is the press: its flashes acknowledged a few milliseconds after it,
        // on the same clock.
        let lit = lines.dropLast().compactMap { shot -> Int? in
            guard let trigger = shot["triggerReceived"] as? Int, let flashes = shot["flashes"] as? [[String: Any]] else { return nil }
            return flashes.compactMap { $0["acknowledged"] as? Int }.min().map { $0 - trigger }
        }
        #expect(lit.count == 20 && lit.allSatisfy { $0 > 0 && $0 < 1_000_000_000 }, "\(lit)")
    }
}
