import Foundation
import StrobeBase
import Synchronization
import StrobeHCI
import StrobeSecurity
import StrobeTestSupport
import Testing
import StrobeHost

struct FileBondStoreTests {
    /// A store's path two levels inside a scratch directory (the store makes the one between).
    static func temporaryPath() throws -> (ScratchDirectory, String) {
        let scratch = try ScratchDirectory("strobe-store")
        return (scratch, scratch.path("strobe/bonds.json"))
    }

    static let bond = Bond(
        peer: IdentityAddress(address: BluetoothAddress("C4:11:22:33:44:55")!, isRandom: true), role: .central,
        securityLevel: .secureConnections, secureConnections: true,
        longTermKey: LongTermKey(value: Array(0x10..<0x20)), peerIRK: IdentityResolvingKey(value: Array(0x30..<0x40)),
        keys: ["LTK", "peer IRK"])

    @Test func keepsBondsInA0600FileInA0700Directory() throws {
        let (scratch, path) = try Self.temporaryPath()
        defer { scratch.remove() }
        let store = FileBondStore(path: path)
        #expect(try store.bonds().isEmpty)
        try store.save(Self.bond)
        let irk = try store.localIRK()
        // A second store on the same file (another process) sees the same.
        let again = FileBondStore(path: path)
        #expect(try again.bonds() == [Self.bond])
        #expect(try again.localIRK() == irk)
        let file = try FileManager.default.attributesOfItem(atPath: path)
        #expect(file[.posixPermissions] as? Int == 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: (path as NSString).deletingLastPathComponent)
        #expect(directory[.posixPermissions] as? Int == 0o700)
        // Saving again for the same peer replaces; forgetting removes.
        var changed = Self.bond
        changed.securityLevel = .unauthenticated
        try store.save(changed)
        #expect(try store.bonds() == [changed])
        #expect(try store.removeBond(for: Self.bond.peer.address))
        #expect(try !store.removeBond(for: Self.bond.peer.address))
        try store.save(Self.bond)
        try store.removeAll()
        #expect(try store.bonds().isEmpty)
        #expect(try store.localIRK() == irk)
        // No temporary files are left behind: the store and its lock file.
        let left = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
        #expect(left.sorted() == ["bonds.json", "bonds.json.lock"])
    }

    @Test(arguments: [
        ("{", "not JSON"),
        ("{\"version\": 2, \"bonds\": []}", "version 2"),
        ("{\"version\": 1, \"bonds\": [{\"peer\": 1}]}", "bonds.0"),
        ("{\"version\": 1, \"localIRK\": \"zz\", \"bonds\": []}", "localIRK"),
    ])
    func aCorruptFileIsATypedErrorNamingItAndIsNotReset(_ contents: String, _ said: String) throws {
        let (scratch, path) = try Self.temporaryPath()
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        let store = FileBondStore(path: path)
        let error = #expect(throws: BondStoreError.self) { try store.bonds() }
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains(said) == true, "\(String(describing: error))")
        #expect(throws: BondStoreError.self) { try store.save(Self.bond) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == contents)
    }

    @Test func aStoreThatCannotBeWrittenSaysWhere() throws {
        // The store's directory is a file.
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-blocker-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: blocker) }
        try Data().write(to: URL(fileURLWithPath: blocker))
        let store = FileBondStore(path: blocker + "/bonds.json")
        let error = #expect(throws: BondStoreError.self) { try store.save(Self.bond) }
        #expect(error?.description.contains(blocker) == true)
    }

    /// A directory of its own, removed after `body`.
    static func inDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    @Test func aSymbolicLinkAtTheStoresPathIsRefusedAndItsTargetLeftAlone() throws {
        try Self.inDirectory { directory in
            let target = directory + "/elsewhere.json"
            try Data("target".utf8).write(to: URL(fileURLWithPath: target))
            let path = directory + "/bonds.json"
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
            let store = FileBondStore(path: path)
            #expect(throws: BondStoreError.notAFile(path: path, kind: "a symbolic link")) { try store.save(Self.bond) }
            #expect(throws: BondStoreError.notAFile(path: path, kind: "a symbolic link")) { try store.bonds() }
            #expect(throws: BondStoreError.notAFile(path: path, kind: "a symbolic link")) { try store.verify() }
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "target")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == target)
        }
    }

    @Test func aSymbolicLinkAtTheLockIsRefusedAndItsTargetLeftAlone() throws {
        try Self.inDirectory { directory in
            let target = directory + "/elsewhere"
            try Data("target".utf8).write(to: URL(fileURLWithPath: target))
            try FileManager.default.createSymbolicLink(atPath: directory + "/bonds.json.lock", withDestinationPath: target)
            let store = FileBondStore(path: directory + "/bonds.json")
            #expect(throws: BondStoreError.notAFile(path: directory + "/bonds.json.lock", kind: "a symbolic link")) { try store.save(Self.bond) }
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "target")
            #expect(!FileManager.default.fileExists(atPath: directory + "/bonds.json"))
        }
    }

    @Test func aLinkPlantedAtATemporaryNameIsNotFollowed() throws {
        try Self.inDirectory { directory in
            let target = directory + "/elsewhere"
            try Data("target".utf8).write(to: URL(fileURLWithPath: target))
            // Another process guessed the next temporary name and planted a link there.
            try FileManager.default.createSymbolicLink(atPath: directory + "/planted", withDestinationPath: target)
            let names = Lock(["planted", "planted", "fresh"])
            let store = FileBondStore(path: directory + "/bonds.json") { names.withLock { $0.removeFirst() } }
            try store.save(Self.bond)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "target")
            #expect(try FileBondStore(path: directory + "/bonds.json").bonds() == [Self.bond])
            #expect(!FileManager.default.fileExists(atPath: directory + "/fresh"))
        }
    }

    @Test func aStorePathThatIsADirectoryOrAFIFOIsSaidInPlainWords() throws {
        try Self.inDirectory { directory in
            let folder = directory + "/folder.json"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            #expect(throws: BondStoreError.notAFile(path: folder, kind: "a directory")) { try FileBondStore(path: folder).verify() }
            let fifo = directory + "/fifo.json"
            #expect(mkfifo(fifo, 0o600) == 0)
            #expect(throws: BondStoreError.notAFile(path: fifo, kind: "a FIFO")) { try FileBondStore(path: fifo).verify() }
            #expect(throws: BondStoreError.notAFile(path: fifo, kind: "a FIFO")) { try FileBondStore(path: fifo).bonds() }
            let error = #expect(throws: BondStoreError.self) { try FileBondStore(path: fifo).verify() }
            #expect(error?.description == "the bond store \(fifo) is a FIFO, not a regular file; give the path of a file")
        }
    }

    @Test func verifyFindsACorruptStoreAndMakesNoChange() throws {
        try Self.inDirectory { directory in
            let path = directory + "/bonds.json"
            try Data("{".utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: BondStoreError.corrupt(path: path, reason: "not JSON")) { try FileBondStore(path: path).verify() }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "{")
            // A good store verifies (its directory made), and verifying leaves no file behind.
            let good = directory + "/good/bonds.json"
            try FileBondStore(path: good).verify()
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/good") == [])
        }
    }

    /// A directory other users can write to (without the sticky bit) is refused: another user
    /// could plant a store there, or hold its lock.
    @Test func aDirectoryOthersCanWriteIsRefused() throws {
        try Self.inDirectory { directory in
            let shared = directory + "/shared"
            try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
            #expect(chmod(shared, 0o777) == 0)
            let error = #expect(throws: BondStoreError.self) { try FileBondStore(path: shared + "/bonds.json").save(Self.bond) }
            #expect(error?.description.contains("can be written by other users") == true, "\(String(describing: error))")
            #expect(!FileManager.default.fileExists(atPath: shared + "/bonds.json"))
        }
    }

    @Test func aRelativePathIsTakenFromTheWorkingDirectory() {
        let store = FileBondStore(path: "bonds.json")
        #expect(store.path == FileManager.default.currentDirectoryPath + "/bonds.json")
    }

    /// Twenty processes change one store at once, ten rounds each: ten save a bond a round, ten
    /// forget one saved before they started. No change is lost. (Twenty children in all: two
    /// hundred would hold both cores from the tests that run in real time beside this one.)
    @Test(.timeLimit(.minutes(2))) func twentyProcessesAtOnceLoseNoUpdate() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-store-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/bonds.json"
        func address(_ index: Int, _ round: Int) -> [UInt8] { [UInt8(index), UInt8(round), 0, 0, 0, 0xC4] }
        // What the forgetters (10 to 19) will forget.
        for index in 10..<20 {
            for round in 1...10 { try FileBondStore(path: path).save(Self.bond(at: BluetoothAddress(wireBytes: address(index, round))!)) }
        }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                let wires = (1...10).map { address(index, $0) }
                let saves = index < 10
                group.addTask {
                    await #expect(processExitsWith: .success) { [path = path as String, wires = wires as [[UInt8]], saves = saves as Bool] in
                        // Two hundred changes queue on one lock, each flushed to the disk: on a
                        // loaded machine the last may wait longer than a store's usual 10 s.
                        let store = FileBondStore(path: path, lockTimeout: .seconds(100), temporaryName: FileBondStore.randomTemporaryName)
                        for wire in wires {
                            let peer = BluetoothAddress(wireBytes: wire)!
                            if saves {
                                try store.save(FileBondStoreTests.bond(at: peer))
                            } else {
                                #expect(try store.removeBond(for: peer))
                            }
                        }
                    }
                }
            }
        }
        let expected = Set((0..<10).flatMap { index in (1...10).map { BluetoothAddress(wireBytes: address(index, $0))! } })
        #expect(Set(try FileBondStore(path: path).bonds().map(\.peer.address)) == expected)
    }

    static func bond(at address: BluetoothAddress) -> Bond {
        var bond = Self.bond
        bond.peer = IdentityAddress(address: address, isRandom: true)
        return bond
    }

    @Test func descriptionsNameKeysButNeverShowThem() {
        let text = "\(Self.bond) \(Self.bond.longTermKey!) \(Self.bond.peerIRK!)"
        let hex = Self.bond.longTermKey!.value.map { String(format: "%02x", $0) }.joined()
        #expect(!text.contains(hex))
        #expect(!text.lowercased().contains("1011121314"))
        #expect(text.contains("LTK") && text.contains("IRK"))
    }
}

struct ResolvablePrivateAddressTests {
    @Test func anAddressMadeFromAnIRKResolvesWithItAndOnlyIt() {
        let irk = IdentityResolvingKey.random()
        let other = IdentityResolvingKey.random()
        for _ in 0..<20 {
            let address = ResolvablePrivateAddress.make(with: irk)
            #expect(ResolvablePrivateAddress.isResolvable(address, type: .random))
            #expect(!ResolvablePrivateAddress.isResolvable(address, type: .public))
            #expect(ResolvablePrivateAddress.resolves(address, with: irk))
            #expect(!ResolvablePrivateAddress.resolves(address, with: other))
        }
    }

    @Test func aBondMatchesItsIdentityAndItsPrivateAddresses() {
        let irk = IdentityResolvingKey.random()
        let bond = Bond(peer: IdentityAddress(address: BluetoothAddress("C4:00:00:00:00:01")!, isRandom: true), role: .central,
                        securityLevel: .unauthenticated, secureConnections: true, longTermKey: nil, peerIRK: irk)
        #expect(bond.matches(bond.peer.address, type: .random))
        #expect(bond.matches(ResolvablePrivateAddress.make(with: irk), type: .random))
        #expect(!bond.matches(ResolvablePrivateAddress.make(with: .random()), type: .random))
        #expect(!bond.matches(BluetoothAddress("C4:00:00:00:00:02")!, type: .random))
    }

    /// The role is kept as text in the bond file ("central", "peripheral"), as files written
    /// before the bond took the link's `LERole` hold it; any other text is refused.
    @Test func theRoleIsKeptAsTextInTheBondFile() throws {
        let bond = Bond(peer: IdentityAddress(address: BluetoothAddress("C4:00:00:00:00:01")!, isRandom: true), role: .peripheral,
                        securityLevel: .unauthenticated, secureConnections: true, longTermKey: nil)
        let json = try #require(String(data: try JSONEncoder().encode(bond), encoding: .utf8))
        #expect(json.contains("\"role\":\"peripheral\""))
        let central = json.replacingOccurrences(of: "\"role\":\"peripheral\"", with: "\"role\":\"central\"")
        #expect(try JSONDecoder().decode(Bond.self, from: Data(central.utf8)).role == .central)
        let other = json.replacingOccurrences(of: "\"role\":\"peripheral\"", with: "\"role\":1")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Bond.self, from: Data(other.utf8)) }
    }
}
