import Foundation
import Strobe
import Testing

/// The bond store as `strobe` uses it from several processes at once and from paths a user
/// types.
struct BondStoreCommandTests {
    static func inDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-cli-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(directory)
    }

    static func bond(_ index: Int) -> Bond {
        Bond(peer: IdentityAddress(address: BluetoothAddress(wireBytes: [UInt8(index), 0, 0, 0, 0, 0xC4])!, isRandom: true),
             role: .central, securityLevel: .unauthenticated, secureConnections: true, longTermKey: LongTermKey(value: Array(0..<16)))
    }

    /// 100 bonds, forgotten by 100 `strobe bonds forget` processes, 20 at a time: every removal
    /// holds.
    @Test(.timeLimit(.minutes(3))) func twentySimultaneousForgetsLoseNoRemoval() async throws {
        try await Self.inDirectory { directory in
            let file = directory + "/bonds.json"
            for index in 0..<100 { try FileBondStore(path: file).save(Self.bond(index)) }
            for batch in 0..<5 {
                let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
                    for index in batch * 20..<(batch + 1) * 20 {
                        group.addTask {
                            // At the lowest priority: a hundred processes must not starve the
                            // tests that run in real time beside this one.
                            try await StrobeCommand.run(
                                executable: URL(fileURLWithPath: "/usr/bin/nice"),
                                ["-n", "19", RepositoryPaths.strobeExecutable.path, "bonds", "forget",
                                 "\(Self.bond(index).peer.address)", "--bonds", file]).status
                        }
                    }
                    return try await group.reduce(into: [Int32]()) { $0.append($1) }
                }
                #expect(statuses == [Int32](repeating: 0, count: 20))
                #expect(try FileBondStore(path: file).bonds().count == 100 - (batch + 1) * 20)
            }
        }
    }

    /// `--bonds bonds.json` is the file in the working directory.
    @Test func aRelativeStorePathIsInTheWorkingDirectory() async throws {
        try await Self.inDirectory { directory in
            let paired = try await StrobeCommand.run(["pair", "--name", "Grip-S1", "--bonds", "bonds.json", "--json"], in: directory)
            #expect(paired.status == 0, "\(paired.stderr)")
            #expect(try FileBondStore(path: directory + "/bonds.json").bonds().count == 1)
            let listed = try await StrobeCommand.run(["bonds", "--bonds", "bonds.json", "--json"], in: directory)
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains("\"securityLevel\""), "\(listed.stdout)")
        }
    }

    /// A symbolic link at the store's path is refused and its target left as it was.
    @Test func aSymlinkedStoreIsRefused() async throws {
        try await Self.inDirectory { directory in
            try Data("{\"version\": 1, \"bonds\": []}".utf8).write(to: URL(fileURLWithPath: directory + "/target.json"))
            try FileManager.default.createSymbolicLink(atPath: directory + "/bonds.json", withDestinationPath: directory + "/target.json")
            let result = try await StrobeCommand.run(["pair", "--name", "Grip-S1", "--bonds", directory + "/bonds.json"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("is a symbolic link, not a regular file"), "\(result.stderr)")
            #expect(try String(contentsOfFile: directory + "/target.json", encoding: .utf8) == "{\"version\": 1, \"bonds\": []}")
        }
    }
}
