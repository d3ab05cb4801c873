import Foundation
import Testing

/// `strobe shoot --modelling-lights` on the simulated world: every record shows the lights down
/// after the FLASH went out and before the exposure, back after the OFF; and the trigger to
/// FLASH time is what it is without lights.
@Suite struct ShootModellingLightsCommandTests {
    static func records(_ arguments: [String]) async throws -> [[String: Any]] {
        // Real time on a machine that may be loaded: deadlines no healthy link misses.
        let result = try await StrobeCommand.run(["shoot", "--count", "10", "--interval-ms", "20", "--ack-deadline-ms", "5000",
                                                  "--lights-deadline-ms", "5000", "--json"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONLines.objects(result.stdout).filter { $0["summary"] == nil }
    }

    /// Trigger to the last FLASH command's issue, nanoseconds, per shot.
    static func triggerToFlash(_ records: [[String: Any]]) -> [Int] {
        records.map { record in
            let issued = (record["flashes"] as? [[String: Any]] ?? []).compactMap { $0["commandIssued"] as? Int }
            return (issued.max() ?? 0) - (record["triggerReceived"] as? Int ?? 0)
        }
    }

    @Test func lightsAreDownForEveryExposureAndTheFlashIsNotDelayed() async throws {
        let with = try await Self.records(["--modelling-lights", "all"])
        let without = try await Self.records([])
        #expect(with.count == 10 && without.count == 10)
        for record in with {
            #expect(record["outcome"] as? String == "captured")
            let lights = try #require(record["modellingLights"] as? [String: Any], "\(record)")
            let flashes = record["flashes"] as? [[String: Any]] ?? []
            let lastFlash = try #require(flashes.compactMap { $0["commandIssued"] as? Int }.max())
            let lastOff = try #require(flashes.compactMap { $0["offAcknowledged"] as? Int }.max())
            #expect(lights["failure"] == nil, "\(lights)")
            #expect(try #require(lights["dimIssued"] as? Int) >= lastFlash)
            #expect(try #require(lights["dimmed"] as? Int) <= (record["captureStart"] as? Int ?? 0))
            #expect(try #require(lights["restoreIssued"] as? Int) >= lastOff)
            #expect(lights["restored"] as? Int != nil)
        }
        #expect(without.allSatisfy { $0["modellingLights"] == nil })
        // The FLASH leaves from the trigger's path in both runs: the median over ten shots is the
        // same within scheduling noise.
        let median = { (values: [Int]) in values.sorted()[values.count / 2] }
        let withMedian = median(Self.triggerToFlash(with)), withoutMedian = median(Self.triggerToFlash(without))
        #expect(withMedian <= withoutMedian + 200_000, "trigger to FLASH: \(withMedian) ns with lights, \(withoutMedian) ns without")
    }
}
