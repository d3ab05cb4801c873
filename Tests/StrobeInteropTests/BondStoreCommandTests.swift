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

    /// Twenty `strobe bonds forget` processes at once on one store of 40 bonds: every removal
    /// holds, and the other bonds stay.
    @Test(.timeLimit(.minutes(5))) func twentySimultaneousForgetsLoseNoRemoval() async throws {
        try await Self.inDirectory { directory in
            let file = directory + "/bonds.json"
            for index in 0..<40 { try FileBondStore(path: file).save(Self.bond(index)) }
            let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await StrobeCommand.run(["bonds", "forget", "\(Self.bond(index).peer.address)", "--bonds", file]).status
                    }
                }
                return try await group.reduce(into: [Int32]()) { $0.append($1) }
            }
            #expect(statuses == [Int32](repeating: 0, count: 20))
            #expect(Set(try FileBondStore(path: file).bonds().map(\.peer.address)) == Set((20..<40).map { Self.bond($0).peer.address }))
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
