import Foundation
import Testing

import StrobeSim

/// Scenario files are input: what a world cannot use is a typed error that says what was wrong.
@Suite struct SimScenarioTests {
    static func load(_ json: String) throws -> SimScenario {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-scenario-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(json.utf8).write(to: file)
        return try SimScenario(contentsOf: file.path)
    }

    @Test func theStandardWorldRoundTrips() throws {
        let data = try JSONEncoder().encode(SimScenario.standard)
        #expect(try Self.load(String(decoding: data, as: UTF8.self)) == .standard)
    }

    @Test(arguments: [
        ("{\"seed\": 1, \"devices\": [{\"kind\": \"stylus\", \"name\": \"Pen\", \"rssi\": -50, \"advertisingIntervalMilliseconds\": 100, \"count\": -5}]}", "count"),
        ("{\"seed\": 1, \"devices\": [{\"kind\": \"nova1\", \"name\": \"Nova\", \"rssi\": -50, \"advertisingIntervalMilliseconds\": 0}]}", "advertisingIntervalMilliseconds"),
        ("{\"seed\": 1, \"aclLength\": 70000, \"devices\": []}", "aclLength"),
        ("{\"seed\": 1, \"loss\": 2, \"devices\": []}", "loss"),
        ("{\"seed\": 1, \"devices\": [{\"kind\": \"toaster\", \"name\": \"T\", \"rssi\": -50, \"advertisingIntervalMilliseconds\": 100}]}", "toaster"),
        ("{\"seed\": 1, \"devices\": [{\"kind\": \"nova1\", \"name\": \"A name far too long for a legacy advertisement\", \"rssi\": -50, \"advertisingIntervalMilliseconds\": 100}]}", "26 bytes"),
        ("not json", "cannot use scenario"),
    ])
    func badScenariosAreTypedErrors(json: String, mentions: String) {
        #expect {
            _ = try Self.load(json)
        } throws: { error in
            guard let error = error as? SimError else { return false }
            return error.description.contains(mentions)
        }
    }
}
