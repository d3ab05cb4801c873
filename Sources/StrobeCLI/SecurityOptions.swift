import ArgumentParser
import Foundation
import Strobe

/// How the tool pairs: IO capability, legacy or LE Secure Connections, bonding, the bond store.
struct SecurityOptions: ParsableArguments {
    @Option(help: "What this side can show and take: no-input-no-output, display-only, display-yes-no, keyboard-only, keyboard-display.")
    var ioCapability: IOCapabilityArgument = .noInputNoOutput
    @Flag(help: "LE legacy pairing only (no LE Secure Connections).")
    var legacy = false
    @Flag(help: "Pair without bonding: no keys are stored.")
    var noBond = false
    @Option(help: "The passkey, when this side is to type one (else it is asked on the terminal).")
    var passkey: UInt32?
    @Option(help: ArgumentHelp("The bond store (JSON; default $XDG_STATE_HOME/strobe/bonds.json).", valueName: "file"))
    var bonds: String?

    func validate() throws {
        if let passkey, passkey > 999_999 { throw ValidationError("--passkey is six digits at most (0...999999)") }
    }

    var store: FileBondStore { FileBondStore(path: bonds ?? FileBondStore.defaultPath) }

    /// Where bonds go: the file, except on the simulated world without --bonds, which is new
    /// each run (its devices keep no bond from one run to the next), so its bonds live in
    /// memory.
    func bondStore(_ global: GlobalOptions) throws -> any BondStore {
        if bonds == nil, case .sim = try global.transportSpec() { return InMemoryBondStore() }
        return store
    }

    /// Where `bondStore` keeps them, for messages.
    func bondStoreName(_ global: GlobalOptions) throws -> String {
        try bondStore(global) is InMemoryBondStore ? "memory, for this run of the simulated world" : store.path
    }

    /// How the host pairs and where it keeps bonds, as the options say.
    func configure(_ configuration: inout BluetoothHost.Configuration, _ global: GlobalOptions) throws {
        configuration.security.bonding = !noBond
        configuration.security.secureConnections = !legacy
        configuration.bondStore = try bondStore(global)
        configuration.pairingDelegate = ioCapability.value == .noInputNoOutput
            ? nil : TerminalPairingDelegate(ioCapability: ioCapability.value, passkey: passkey)
    }
}

enum IOCapabilityArgument: String, ExpressibleByArgument, CaseIterable {
    case noInputNoOutput = "no-input-no-output"
    case displayOnly = "display-only"
    case displayYesNo = "display-yes-no"
    case keyboardOnly = "keyboard-only"
    case keyboardDisplay = "keyboard-display"

    var value: SMPIOCapability {
        switch self {
        case .noInputNoOutput: .noInputNoOutput
        case .displayOnly: .displayOnly
        case .displayYesNo: .displayYesNo
        case .keyboardOnly: .keyboardOnly
        case .keyboardDisplay: .keyboardDisplay
        }
    }
}

/// The user's part of pairing on the terminal: passkeys shown on stderr, typed on stdin (or
/// given with --passkey), numbers confirmed with y/n.
struct TerminalPairingDelegate: PairingDelegate {
    let ioCapability: SMPIOCapability
    let passkey: UInt32?

    func confirmNumber(_ number: UInt32, with peer: BluetoothAddress) async -> Bool {
        prompt("Does \(peer) show \(Self.sixDigits(number))? [y/N] ")
        return await readLine().map { $0.lowercased().hasPrefix("y") } ?? false
    }

    func displayPasskey(_ passkey: UInt32, to peer: BluetoothAddress) async {
        prompt("Passkey for \(peer): \(Self.sixDigits(passkey))\n")
    }

    func enterPasskey(for peer: BluetoothAddress) async -> UInt32? {
        if let passkey { return passkey }
        prompt("Passkey shown by \(peer): ")
        return await readLine().flatMap { UInt32($0.trimmingCharacters(in: .whitespaces)) }
    }

    static func sixDigits(_ value: UInt32) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 6 - text.count)) + text
    }

    private func prompt(_ text: String) {
        printError(text)
    }

    /// A line of stdin, read off the cooperative pool.
    private func readLine() async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Swift.readLine()) }
        }
    }
}

/// `--security` for commands that talk GATT: the level to bring the link to first (with the
/// bond when there is one, else by pairing), and how to pair.
struct LinkSecurityOptions: ParsableArguments {
    enum Level: String, ExpressibleByArgument, CaseIterable {
        case encrypted, authenticated
        var value: SMPSecurityLevel { self == .encrypted ? .unauthenticated : .authenticated }
    }

    @Option(help: "Secure the link first: encrypted (the bond's key, else pairing) or authenticated (pairing with MITM protection: give an --io-capability that allows it).")
    var security: Level?
    @OptionGroup var pairing: SecurityOptions

    /// The MTU the target offers, and pairing as the options say.
    func configure(_ configuration: inout BluetoothHost.Configuration, _ target: GATTTargetOptions, _ global: GlobalOptions) throws {
        target.configure(&configuration)
        try pairing.configure(&configuration, global)
    }

    /// Connects (on a session configured with `configure`) and secures the link as asked.
    func connect(_ target: GATTTargetOptions, _ session: ControllerSession) async throws -> LEConnection {
        let connection = try await target.connect(session)
        if let security {
            do {
                try await connection.secure(to: security.value)
            } catch {
                _ = try? await connection.disconnect()
                throw error
            }
        }
        return connection
    }
}
