import Foundation
import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// Finds, connects, bonds and remembers a camera grip, as grip SDKs do: `connect(toGrip:)`
/// connects and bonds (the grip sends its events only on an encrypted link), `start()`
/// reconnects the bonded grip and encrypts with the bond's key (giving up after a timeout),
/// scanning reports each grip once with its latest RSSI, `disconnectAndForgetBondedGrip()`
/// drops the link and the bond. The grip's events come as an `AsyncSequence` and through a
/// closure. The remembered grip is a small file in the user's state directory; the bond is in
/// the central's bond store.
public final class GripManager: Sendable {
    /// A grip seen while scanning, as remembered between runs (stored as JSON).
    public struct DiscoveredGrip: Sendable, Hashable, Codable {
        /// The Bluetooth device address as text, `AA:BB:CC:DD:EE:FF`.
        public var address: String
        /// The address type by its `LEAddressType` description (`public`, `random`, ...).
        public var addressType: String
        /// The advertised local name (it starts with `Grip`); empty when none was received.
        public var name: String
        /// The latest RSSI in dBm; `nil` when the controller reported none.
        public var rssi: Int?

        /// A grip at `address` of type `addressType`, advertising `name`, last heard at `rssi` dBm.
        public init(address: String, addressType: String, name: String, rssi: Int?) {
            self.address = address
            self.addressType = addressType
            self.name = name
            self.rssi = rssi
        }
    }

    /// Where the manager is in finding and connecting a grip.
    public enum State: Sendable, Hashable {
        /// Created; `start()` has not been called yet.
        case uninitialized
        /// Idle: no grip connected and not scanning.
        case ready
        /// `startScanning()` is looking for grips to offer.
        case scanningForGrips
        /// `start()` is looking for the remembered grip, for up to the reconnect timeout.
        case scanningForBondedGrip
        /// Connecting to, bonding with and setting up this grip.
        case connecting(DiscoveredGrip)
        /// This grip is connected, encrypted and delivering events.
        case connected(DiscoveredGrip)
        /// Not allowed to use Bluetooth (the state grip SDKs report when permission is denied); this
        /// manager does not enter it on Linux.
        case unauthorized
        /// `start()` found the controller not opened yet (it has no `ControllerInfo`).
        case bluetoothUnavailable
    }

    /// How the manager reconnects, which firmware it accepts and where it remembers the grip.
    public struct Configuration: Sendable {
        /// How long `start()` scans for the remembered grip before it gives up; 5 s by default.
        public var reconnectTimeout: Duration
        /// The oldest grip firmware accepted; `1.2.0` by default.
        public var firmware: GripFirmwareRequirement
        /// Where the remembered grip is kept.
        public var rememberedGripFile: URL

        /// The defaults: a 5 s reconnect timeout, firmware `1.2.0` or newer, and the file at
        /// `GripManager.defaultRememberedGripFile`.
        public init(reconnectTimeout: Duration = .seconds(5), firmware: GripFirmwareRequirement = GripFirmwareRequirement(),
                    rememberedGripFile: URL = GripManager.defaultRememberedGripFile) {
            self.reconnectTimeout = reconnectTimeout
            self.firmware = firmware
            self.rememberedGripFile = rememberedGripFile
        }
    }

    /// `$XDG_STATE_HOME/strobe/grip.json`, or `~/.local/state/strobe/grip.json`.
    public static var defaultRememberedGripFile: URL {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_STATE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".local/state")
        return base.appendingPathComponent("strobe/grip.json")
    }

    /// The central that scans, connects and keeps the bonds.
    public let central: Central
    /// The settings given at creation.
    public let configuration: Configuration
    private let state: Lock<Inner>
    private let stateChanges = AsyncBroadcast<State>()
    private let discoveryUpdates = AsyncBroadcast<DiscoveredGrip>()
    private let gripEvents = AsyncBroadcast<GripEventOccurrence>()

    private struct Inner {
        var state: State = .uninitialized
        var grip: Grip?
        var connection: LEConnection?
        var discovered: [String: DiscoveredGrip] = [:]
        var scanning: Task<Void, any Error>?
        var onEvent: Grip.EventHandler?
        var lastError: GripError?
    }

    /// A manager in state `.uninitialized` that uses `central` (whose clock times the reconnect
    /// scan).
    package init(central: Central, configuration: Configuration = Configuration()) {
        self.central = central
        self.configuration = configuration
        state = Lock(Inner())
    }

    /// The state now; `states()` follows its changes.
    public var currentState: State { state.withLock { $0.state } }
    /// Why the last `start()` did not reconnect the bonded grip (for example: it no longer has
    /// the bond, so encryption failed).
    public var lastError: GripError? { state.withLock { $0.lastError } }
    /// The connected grip; `nil` when none is.
    public var grip: Grip? { state.withLock { $0.grip } }
    /// The grips `startScanning()` has found (kept across scans), one per address with its latest
    /// RSSI, sorted by address.
    public var discoveredGrips: [DiscoveredGrip] { state.withLock { Array($0.discovered.values) }.sorted { $0.address < $1.address } }

    /// The grip remembered from an earlier connection, if any.
    public var rememberedGrip: DiscoveredGrip? {
        guard let data = try? Data(contentsOf: configuration.rememberedGripFile) else { return nil }
        return try? JSONDecoder().decode(DiscoveredGrip.self, from: data)
    }

    // MARK: Observing

    /// The current state, then each change of it.
    public func states() -> AsyncStream<State> { stateChanges.stream(startingWith: currentState) }

    /// Each grip found by `startScanning`, when first seen and when its RSSI changes.
    public func discoveries() -> AsyncStream<DiscoveredGrip> { discoveryUpdates.stream() }

    /// The grip's events, from whichever grip is connected.
    public func events() -> AsyncStream<GripEventOccurrence> { gripEvents.stream() }

    /// Called on the receive path with each event; must not block.
    public func setEventHandler(_ handler: Grip.EventHandler?) { state.withLock { $0.onEvent = handler } }

    private func set(_ new: State) {
        let changed = state.withLock { s -> Bool in
            guard s.state != new else { return false }
            s.state = new
            return true
        }
        if changed { stateChanges.yield(new) }
    }

    // MARK: Starting, scanning, connecting

    /// Reconnects the bonded grip and encrypts the link with the bond's key, or becomes ready
    /// when there is none, it did not show up within the reconnect timeout, or the link could
    /// not be encrypted (`lastError` says why). A grip using private addresses is found through
    /// its IRK.
    public func start() async {
        guard central.controller.info != nil else {
            set(.bluetoothUnavailable)
            return
        }
        guard let remembered = rememberedGrip, let address = BluetoothAddress(remembered.address) else {
            set(.ready)
            return
        }
        set(.scanningForBondedGrip)
        let bond = central.security.bond(for: address, type: LEAddressType.named(remembered.addressType) ?? .random)
        // A scan that finds nothing in time, or is cancelled, leaves the manager ready; one that
        // cannot start or stop too, with why in `lastError`.
        let found: DiscoveredDevice?
        do {
            found = try await central.firstSeen(within: configuration.reconnectTimeout) { device in
                device.address == address || bond?.matches(device.address, type: device.addressType) == true
            }
        } catch is CancellationError {
            found = nil
        } catch let error as StrobeError where error == .cancelled {
            found = nil
        } catch {
            state.withLock { $0.lastError = GripError(filing: error) }
            found = nil
        }
        guard let found else {
            set(.ready)
            return
        }
        do {
            _ = try await connect(toGrip: Self.describe(found))
        } catch {
            state.withLock { $0.lastError = error }
        }
    }
    /// Scans for grips (advertised names starting with `Grip`); each grip appears once in
    /// `discoveredGrips`, its RSSI kept current. Stops with `stopScanning()`.
    public func startScanning() async throws(GripError) {
        let scanner = central.scanner()
        let updates = scanner.updates()
        try await filing(GripError.init(filing:)) { try await scanner.start() }
        set(.scanningForGrips)
        let task = Task(executorPreference: central.controller.loop.offLoopExecutor) { [weak self] in
            for await device in updates where device.name?.hasPrefix(GripProfile.localNamePrefix) == true {
                let grip = Self.describe(device)
                guard let self else { return }
                let changed = self.state.withLock { s -> Bool in
                    guard s.discovered[grip.address] != grip else { return false }
                    s.discovered[grip.address] = grip
                    return true
                }
                if changed { self.discoveryUpdates.yield(grip) }
            }
            try await scanner.stop()
        }
        state.withLock { $0.scanning = task }
    }

    /// Stops the scan that `startScanning()` began; the state goes back to `.ready` if it was
    /// `.scanningForGrips`. Grips found stay in `discoveredGrips`. Throws when the controller's
    /// scan could not be stopped.
    public func stopScanning() async throws(GripError) {
        let task = state.withLock { s -> Task<Void, any Error>? in
            defer { s.scanning = nil }
            return s.scanning
        }
        task?.cancel()
        if case .scanningForGrips = currentState { set(.ready) }
        guard let task else { return }
        do {
            try await task.value
        } catch {
            throw GripError(filing: error)
        }
    }

    /// Connects, bonds (or, bonded already, encrypts with the bond's key), checks the firmware
    /// (an old grip is refused, naming both versions) and remembers the grip for the next
    /// `start()`.
    @discardableResult
    public func connect(toGrip grip: DiscoveredGrip) async throws(GripError) -> Grip {
        try await filing(GripError.init(filing:)) { try await connecting(grip) }
    }

    private func connecting(_ grip: DiscoveredGrip) async throws -> Grip {
        try await stopScanning()
        guard let address = BluetoothAddress(grip.address), let type = LEAddressType.named(grip.addressType) else {
            throw GripError.notAGrip(services: [])
        }
        set(.connecting(grip))
        do {
            let connection = try await central.connect(to: address, addressType: type)
            let attached: Grip
            do {
                attached = try await Grip.attach(to: connection, requirement: configuration.firmware) { [weak self] occurrence in
                    self?.deliver(occurrence)
                }
            } catch {
                _ = try? await connection.disconnect()
                throw error
            }
            do {
                try remember(grip)
            } catch {
                // Not remembered, the next start() could not find it again: the connect fails.
                _ = try? await connection.disconnect()
                throw error
            }
            state.withLock {
                $0.grip = attached
                $0.connection = connection
            }
            set(.connected(grip))
            Task(executorPreference: central.controller.loop.offLoopExecutor) { [weak self] in
                _ = await connection.disconnected()
                guard let self, case .connected = self.currentState else { return }
                self.state.withLock {
                    $0.grip = nil
                    $0.connection = nil
                }
                self.set(.ready)
            }
            return attached
        } catch {
            set(.ready)
            throw error
        }
    }

    /// Disconnects the grip, and forgets it and its bond. Throws when the bond or the remembered
    /// grip could not be removed, or the link could not be ended; what could be done is done.
    public func disconnectAndForgetBondedGrip() async throws(GripError) {
        var failure: GripError?
        if let remembered = rememberedGrip, let address = BluetoothAddress(remembered.address) {
            let type = LEAddressType.named(remembered.addressType) ?? .random
            let identity = central.security.bond(for: address, type: type)?.peer.address ?? address
            do {
                let store = central.security.store
                try await central.security.callingStore { () throws(BondStoreError) in _ = try store?.removeBond(for: identity) }
            } catch {
                failure = GripError(filing: error)
            }
        }
        do {
            try FileManager.default.removeItem(at: configuration.rememberedGripFile)
        } catch let error as CocoaError where error.code == .fileNoSuchFile {
            // Nothing remembered: nothing to forget.
        } catch {
            failure = failure ?? GripError(filing: error)
        }
        let connection = state.withLock { s -> LEConnection? in
            defer {
                s.connection = nil
                s.grip = nil
            }
            return s.connection
        }
        set(.ready)
        do throws(StrobeError) {
            _ = try await connection?.disconnect()
        } catch {
            failure = failure ?? GripError(filing: error)
        }
        if let failure { throw failure }
    }

    /// Reads the connected grip's Battery Level. Throws `GripError.notAGrip` with no services
    /// when no grip is connected, otherwise as `Grip.batteryLevel()`.
    public func batteryLevel() async throws(GripError) -> BatteryLevel {
        guard let grip else { throw GripError.notAGrip(services: []) }
        return try await grip.batteryLevel()
    }

    private func deliver(_ occurrence: GripEventOccurrence) {
        let handler = state.withLock { $0.onEvent }
        handler?(occurrence)
        gripEvents.yield(occurrence)
    }

    private func remember(_ grip: DiscoveredGrip) throws {
        let file = configuration.rememberedGripFile
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(grip).write(to: file, options: .atomic)
    }

    private static func describe(_ device: DiscoveredDevice) -> DiscoveredGrip {
        DiscoveredGrip(address: device.address.description, addressType: device.addressType.description,
                       name: device.name ?? "", rssi: device.rssi)
    }
}
