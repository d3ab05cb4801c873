import Foundation
import Strobe
import StrobeTestSupport
import Testing

/// `strobe pair` and `strobe bonds` against Bumble's Security Manager on RootCanal.
extension RootCanalTests {
    struct PairCommandTests {
        @Test func pairsBondsListsAndForgets() async throws {
            try await RootCanal.with { rootCanal in try await Self.pairBondListForget(rootCanal) }
        }

        static func pairBondListForget(_ rootCanal: RootCanal) async throws {
            // Keyboards on both sides: both users type the same passkey.
            let bumble = try await BumbleSMPPeer(on: rootCanal, arguments: ["--role", "peripheral", "--io-capability", "keyboard-only", "--mitm"])
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-bonds-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            // The default store, under XDG_STATE_HOME.
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_STATE_HOME"] = directory.path
            let typing = Task { try await bumble.typePasskey(271_828) }
            let result = try await StrobeCommand.run(
                ["--transport", rootCanal.transport, "pair", "--name", "Bumble-SMP", "--io-capability", "keyboard-only",
                 "--passkey", "271828", "--json"], environment: environment)
            try await typing.value
            #expect(result.status == 0, "\(result.stderr)")
            let report = try #require(try JSONLines.objects(result.stdout).first)
            #expect(Set(report.keys) == ["address", "method", "securityLevel", "keys", "bonded"])
            #expect(report["address"] as? String == bumble.address)
            #expect(report["method"] as? String == "passkey-entry")
            #expect(report["securityLevel"] as? String == "secure-connections")
            #expect(report["bonded"] as? Bool == true)
            #expect((report["keys"] as? [String])?.contains("LTK") == true)
            _ = try await bumble.event("ENCRYPTED")

            let file = directory.appendingPathComponent("strobe/bonds.json").path
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let directoryMode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("strobe").path)
            #expect((directoryMode[.posixPermissions] as? Int) == 0o700)

            let listed = try await StrobeCommand.run(["bonds", "--json"], environment: environment)
            #expect(listed.status == 0, "\(listed.stderr)")
            let bonds = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(bonds.count == 1)
            #expect(bonds.first?["address"] as? String == bumble.address)
            #expect(bonds.first?["securityLevel"] as? String == "secure-connections")
            // Names of keys, never their values.
            let stored = try String(contentsOfFile: file, encoding: .utf8)
            let ltk = try #require(FileBondStore(path: file).bonds().first?.longTermKey?.value.map { String(format: "%02x", $0) }.joined())
            #expect(stored.contains(ltk))
            #expect(!listed.stdout.contains(ltk) && !result.stdout.contains(ltk) && !result.stderr.contains(ltk))

            let text = try await StrobeCommand.run(["bonds"], environment: environment)
            #expect(text.stdout.contains(bumble.address) && text.stdout.contains("central"), "\(text.stdout)")
            let forgotten = try await StrobeCommand.run(["bonds", "forget", bumble.address], environment: environment)
            #expect(forgotten.status == 0, "\(forgotten.stderr)")
            let again = try await StrobeCommand.run(["bonds", "forget", bumble.address], environment: environment)
            #expect(again.status == 1)
            #expect(again.stderr.contains("no bond with \(bumble.address)"), "\(again.stderr)")
            #expect(try FileBondStore(path: file).bonds().isEmpty)
        }

        @Test func aCorruptStoreIsAnErrorNamingTheFileAndIsLeftAlone() async throws {
            let scratch = try ScratchDirectory("strobe-bonds")
            defer { scratch.remove() }
            let file = scratch.url("bonds.json")
            try Data("{\"version\": 1, \"bonds\": [{\"peer\": 7}]".utf8).write(to: file)
            let result = try await StrobeCommand.run(["bonds", "--bonds", file.path])
            #expect(result.status == 1)
            #expect(result.stderr.contains(file.path) && result.stderr.contains("corrupt"), "\(result.stderr)")
            #expect(try Data(contentsOf: file) == Data("{\"version\": 1, \"bonds\": [{\"peer\": 7}]".utf8))
        }

        @Test func gattSecurityEncryptsBeforeReading() async throws {
            try await RootCanal.with { rootCanal in try await Self.readWithSecurity(rootCanal) }
        }

        static func readWithSecurity(_ rootCanal: RootCanal) async throws {
            let bumble = try await BumbleSMPPeer(on: rootCanal, arguments: ["--role", "peripheral", "--protected", "5ec0"])
            let scratch = try ScratchDirectory("strobe-bonds")
            defer { scratch.remove() }
            let file = scratch.url("bonds.json")
            let read = try await StrobeCommand.run(
                ["--transport", rootCanal.transport, "gatt", "read", "--name", "Bumble-SMP", "--security", "encrypted",
                 "--bonds", file.path, "5EC00002-5EC0-4E00-8000-00805F9B34FB"])
            #expect(read.status == 0, "\(read.stderr)")
            #expect(read.stdout.lowercased().contains("5e c0") || read.stdout.lowercased().contains("5ec0"), "\(read.stdout)")
            _ = try await bumble.event("ENCRYPTED")
            #expect(try FileBondStore(path: file.path).bonds().count == 1)
            // Authenticated needs MITM: Just Works (no-input-no-output) cannot give it.
            let refused = try await StrobeCommand.run(
                ["--transport", rootCanal.transport, "gatt", "read", "--name", "Bumble-SMP", "--security", "authenticated",
                 "--bonds", file.path, "5EC00002-5EC0-4E00-8000-00805F9B34FB"])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("authenticated is required"), "\(refused.stderr)")
        }
    }
}
