import Foundation
import StrobeHCI
import StrobeSecurity
import Testing
@testable import StrobeHost

struct FileBondStoreTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("strobe-store-\(UUID().uuidString)/strobe/bonds.json").path
    }

    static let bond = Bond(
        peer: IdentityAddress(address: BluetoothAddress("C4:11:22:33:44:55")!, isRandom: true), role: .central,
        securityLevel: .secureConnections, secureConnections: true,
        longTermKey: LongTermKey(value: Array(0x10..<0x20)), peerIRK: IdentityResolvingKey(value: Array(0x30..<0x40)),
        keys: ["LTK", "peer IRK"])

    @Test func keepsBondsInA0600FileInA0700Directory() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
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
        // No temporary files are left behind.
        let left = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
        #expect(left == ["bonds.json"])
    }

    @Test(arguments: [
        ("{", "not JSON"),
        ("{\"version\": 2, \"bonds\": []}", "version 2"),
        ("{\"version\": 1, \"bonds\": [{\"peer\": 1}]}", "bonds.0"),
        ("{\"version\": 1, \"localIRK\": \"zz\", \"bonds\": []}", "localIRK"),
    ])
    func aCorruptFileIsATypedErrorNamingItAndIsNotReset(_ contents: String, _ said: String) throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
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
}
