import ArgumentParser
import Foundation
import StrobeHCI
import Strobe

/// `strobe pair`: connects, pairs, prints the method, the level reached, the keys (by name) and
/// whether the bond was stored.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Connect and pair with a device; bond unless --no-bond.",
        discussion: "Passkeys this side shows are printed on stderr; one this side types is asked on the terminal or given with --passkey. Keys are never printed, only their names.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: GATTTargetOptions
    @OptionGroup var security: SecurityOptions
    @Flag(help: "One JSON object: address, method, securityLevel, keys, bonded.") var json = false

    struct Report: Encodable {
        var address: String
        var method: String
        var securityLevel: String
        var keys: [String]
        var bonded: Bool
    }

    func run() async throws {
        // A store that cannot keep the bond fails here, before anything goes on the air.
        if !security.noBond { try security.bondStore(global).verify() }
        let session = try await ControllerSession.open(global) {
            target.configure(&$0)
            try security.configure(&$0, global)
        }
        try await session.closing {
            let connection = try await target.connect(session)
            let result: SMPPairingResult
            do {
                result = try await connection.pair()
            } catch {
                _ = try? await connection.disconnect()
                throw error
            }
            let report = Report(address: "\(connection.peerAddress)", method: result.method.name, securityLevel: result.securityLevel.name,
                                keys: result.keysExchanged, bonded: result.bonded)
            if json {
                try JSONOutput.print(report)
            } else {
                print("""
                    paired with \(report.address): \(result.secureConnections ? "LE Secure Connections" : "LE legacy pairing"), \(report.method)
                    security level \(report.securityLevel), \(result.keySize)-octet key
                    keys: \(report.keys.isEmpty ? "none" : report.keys.joined(separator: ", "))
                    \(report.bonded ? "bonded (stored in \(try security.bondStoreName(global)))" : "not bonded")
                    """)
            }
            try await connection.disconnect()
        }
    }
}

/// `strobe bonds`: lists or forgets the stored bonds.
struct BondsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bonds",
        abstract: "List stored bonds, or forget one (forget ADDR) or all (forget --all).",
        discussion: "Keys are never printed, only their names.")
    @Argument(help: "list, or forget.") var action: Action = .list
    @Argument(help: "forget: the peer's identity address.") var address: String?
    @Flag(help: "forget: every bond.") var all = false
    @Option(help: ArgumentHelp("The bond store (JSON; default $XDG_STATE_HOME/strobe/bonds.json).", valueName: "file"))
    var bonds: String?
    @Flag(help: "JSON output.") var json = false

    enum Action: String, ExpressibleByArgument, CaseIterable { case list, forget }

    struct Entry: Encodable {
        var address: String
        var addressType: String
        var role: String
        var securityLevel: String
        var secureConnections: Bool
        var keys: [String]
    }

    func validate() throws {
        switch action {
        case .list:
            guard address == nil, !all else { throw ValidationError("list takes no address and no --all") }
        case .forget:
            guard (address == nil) != !all else { throw ValidationError("forget takes an address or --all") }
            if let address, BluetoothAddress(address) == nil { throw ValidationError("'\(address)' is not AA:BB:CC:DD:EE:FF") }
        }
    }

    func run() async throws {
        let store = FileBondStore(path: bonds ?? FileBondStore.defaultPath)
        switch action {
        case .list:
            let entries = try store.bonds().map { bond in
                Entry(address: "\(bond.peer.address)", addressType: bond.peer.isRandom ? "random" : "public", role: bond.role == .central ? "central" : "peripheral",
                      securityLevel: bond.securityLevel.name, secureConnections: bond.secureConnections, keys: bond.keys)
            }
            if json {
                try JSONOutput.print(entries)
            } else if entries.isEmpty {
                print("no bonds in \(store.path)")
            } else {
                for entry in entries {
                    print("\(entry.address) (\(entry.addressType))  \(entry.role)  \(entry.securityLevel)  keys: \(entry.keys.joined(separator: ", "))")
                }
            }
        case .forget:
            if all {
                // Off the pool: the store's lock and file.
                let count = try await onThreadOfItsOwn { () throws(BondStoreError) in
                    let count = try store.bonds().count
                    try store.removeAll()
                    return count
                }
                if json { try JSONOutput.print(["forgotten": count]) } else { print("forgot \(count) bond\(count == 1 ? "" : "s")") }
            } else if let address, let peer = BluetoothAddress(address) {
                guard try await onThreadOfItsOwn({ () throws(BondStoreError) in try store.removeBond(for: peer) }) else {
                    throw BondsCommandError.noBond(address)
                }
                if json { try JSONOutput.print(["forgotten": 1]) } else { print("forgot the bond with \(peer)") }
            }
        }
    }
}

enum BondsCommandError: Error, CustomStringConvertible {
    case noBond(String)
    var description: String {
        switch self {
        case .noBond(let address): "there is no bond with \(address)"
        }
    }
}
