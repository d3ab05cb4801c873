import Foundation
import Testing

/// `strobe shoot --modelling-lights` on the simulated world, in virtual time: every record shows
/// the lights down after the FLASH went out and before the exposure, back after the OFF; and the
/// trigger to FLASH time is what it is without lights.
@Suite struct ShootModellingLightsCommandTests {
    /// The shot records of `shoot --count 10` with `arguments`, run in-process in virtual time.
    static func records(_ arguments: [String]) async throws -> [[String: Any]] {
        let ran = try await InProcessCommand.run(["shoot", "--count", "10", "--interval-ms", "20", "--json"] + arguments)
        #expect(ran.status == 0, "\(ran.stderr)")
        return try JSONLines.objects(ran.stdout).filter { $0["summary"] == nil }
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
        // The FLASH leaves from the trigger's path in both runs: on the world's clock, in the same
        // instant as the trigger (waiting for the lights would take air time).
        #expect(Self.triggerToFlash(with) == Array(repeating: 0, count: 10), "trigger to FLASH, ns, with lights")
        #expect(Self.triggerToFlash(without) == Array(repeating: 0, count: 10), "trigger to FLASH, ns, without")
    }
}
