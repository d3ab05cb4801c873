import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// Finds, connects and drives Nova flashes, as the reference SDK does: auto-pair `none`,
/// `closest` (the strongest RSSI in a scan burst) or `all` (every Nova in range, fired together),
/// changeable at run time; a status readable at any time and observable; reconnection after a
/// disconnect while enabled.
public final class NovaFlashManager: Sendable {
    /// Which flashes the manager connects to on its own while enabled.
    public enum AutoPairMode: String, Sendable, Hashable, CaseIterable {
        /// `none` connects to none, `closest` to the Nova with the strongest RSSI in a scan burst,
        /// `all` to every Nova in range (commands then go to all of them together).
        case none, closest, all
    }

    /// The reference SDK's status of the manager; `busy` and `ready` concern the connected flashes.
    public enum Status: String, Sendable, Hashable {
        /// `disabled`: not enabled. `disconnected`: no flash connected (between scan bursts when
        /// enabled). `scanning`: a scan burst is running. `connecting`: connecting to the flashes
        /// chosen. `handshaking`: connected, finding the Nova service and subscribing to its
        /// responses. `ready`: flashes connected, no command outstanding. `busy`: a command awaits
        /// their acks.
        case disabled, disconnected, scanning, connecting, handshaking, ready, busy
    }

    /// Scan timing and timeouts.
    public struct Configuration: Sendable {
        /// How long each scan burst lasts, and the pause between bursts that found nothing.
        public var scanBurst: Duration
        /// The wait after a burst that connected no flash, or after a failed attempt; 1 s by default.
        public var scanPause: Duration
        /// How long each command waits for a flash's ack before it fails with `.ackTimeout`; 2 s by
        /// default, as in the reference SDK.
        public var ackTimeout: Duration
        /// How long connecting to one chosen flash may take; 5 s by default.
        public var connectTimeout: Duration

        /// The defaults: 700 ms scan bursts, 1 s pauses, a 2 s ack timeout and a 5 s connect timeout.
        public init(scanBurst: Duration = .milliseconds(700), scanPause: Duration = .seconds(1),
                    ackTimeout: Duration = .seconds(2), connectTimeout: Duration = .seconds(5)) {
            self.scanBurst = scanBurst
            self.scanPause = scanPause
            self.ackTimeout = ackTimeout
            self.connectTimeout = connectTimeout
        }
    }

    /// A connected flash and where it is.
    public struct ConnectedFlash: Sendable {
        /// The flash's Bluetooth device address.
        public var address: BluetoothAddress
        /// The advertised local name it was found by, e.g. `Nova` or `Nova2`.
        public var name: String
        /// The RSSI in dBm in the scan burst that found it; `nil` when the controller reported none.
        public var rssi: Int?
        /// The LE connection to the flash.
        public var connection: LEConnection
        /// The flash, ready for commands.
        public var flash: NovaFlash
    }

    /// How one flash answered a command sent to every connected flash.
    public struct FlashResult: Sendable {
        /// The flash's Bluetooth device address.
        public var address: BluetoothAddress
        /// Its acknowledgement (with the round trip), or why it failed (usually
        /// `NovaError.command`).
        public var result: Result<NovaAcknowledgement, NovaError>
    }

    /// The central that scans and connects.
    public let central: Central
    /// The settings given at creation.
    public let configuration: Configuration
    private let clock: any Clock<Duration>
    private let makeFlash: @Sendable (GATTClient) async throws -> NovaFlash
    private let state: Lock<State>
    private let statuses = AsyncBroadcast<Status>()

    private struct State {
        var mode: AutoPairMode = .closest
        var status: Status = .disabled
        var flashes: [ConnectedFlash] = []
        var loop: Task<Void, Never>?
        var onStatus: (@Sendable (Status) -> Void)?
        var commandsInFlight = 0
    }

    /// A manager with status `.disabled` and auto-pair `mode` (`closest` by default); `clock` times
    /// the pauses between scan bursts and the flashes' ack timeouts. `enable()` starts it.
    package init<C: Clock>(central: Central, clock: C, mode: AutoPairMode = .closest,
                          configuration: Configuration = Configuration()) where C.Duration == Duration {
        self.central = central
        self.configuration = configuration
        self.clock = clock
        let ackTimeout = configuration.ackTimeout
        makeFlash = { gatt in try await NovaFlash.attach(to: gatt, clock: clock, ackTimeout: ackTimeout) }
        state = Lock(State(mode: mode))
    }

    // MARK: Status

    /// The status now; `statusUpdates()` and the status handler follow its changes.
    public var status: Status { state.withLock { $0.status } }
    /// The auto-pair mode; `setAutoPairMode(_:)` changes it.
    public var mode: AutoPairMode { state.withLock { $0.mode } }
    /// The connected flashes, in the order they were connected.
    public var flashes: [ConnectedFlash] { state.withLock { $0.flashes } }

    /// Every status change from now on, starting with the current status.
    public func statusUpdates() -> AsyncStream<Status> { statuses.stream(startingWith: status) }

    /// Called with every status change.
    public func setStatusHandler(_ handler: (@Sendable (Status) -> Void)?) {
        state.withLock { $0.onStatus = handler }
    }

    private func setStatus(_ status: Status) {
        let (changed, handler) = state.withLock { s -> (Bool, (@Sendable (Status) -> Void)?) in
            guard s.status != status else { return (false, nil) }
            s.status = status
            return (true, s.onStatus)
        }
        guard changed else { return }
        statuses.yield(status)
        handler?(status)
    }

    // MARK: Enabling

    /// Starts auto-pairing in the current mode; reconnects after disconnects until disabled.
    public func enable() {
        let old = state.withLock { s -> Task<Void, Never>? in
            defer { s.loop = Task(executorPreference: clock.taskExecutor) { [weak self] in await self?.run() } }
            return s.loop
        }
        old?.cancel()
        if status == .disabled { setStatus(.disconnected) }
    }

    /// Stops auto-pairing and disconnects every flash. Every flash is disconnected even when one
    /// fails to; the first failure is thrown after.
    public func disable() async throws(StrobeError) {
        let (loop, flashes) = state.withLock { s -> (Task<Void, Never>?, [ConnectedFlash]) in
            defer {
                s.loop = nil
                s.flashes = []
            }
            return (s.loop, s.flashes)
        }
        loop?.cancel()
        defer { setStatus(.disabled) }
        try await flashes.map(\.connection).disconnectAll()
    }

    /// Changes the mode; while enabled, reconnects accordingly (throws when a flash could not be
    /// disconnected first; the manager is enabled again all the same).
    public func setAutoPairMode(_ mode: AutoPairMode) async throws(StrobeError) {
        let enabled = state.withLock { s -> Bool in
            s.mode = mode
            return s.loop != nil
        }
        guard enabled else { return }
        defer { enable() }
        try await disable()
    }

    private func run() async {
        while !Task.isCancelled {
            let mode = self.mode
            guard mode != .none else {
                setStatus(.disconnected)
                return
            }
            do {
                let connected = try await connect(mode == .all ? .all : .closest)
                if connected.isEmpty {
                    setStatus(.disconnected)
                    try await clock.sleep(for: configuration.scanPause)
                    continue
                }
                // Wait until one of them drops, then look again.
                await withTaskGroup(of: Void.self) { group in
                    for flash in connected { group.addTask { _ = await flash.connection.disconnected() } }
                    await group.next()
                    group.cancelAll()
                }
                removeDisconnected()
            } catch {
                if Task.isCancelled { return }
                setStatus(.disconnected)
                try? await clock.sleep(for: configuration.scanPause)
            }
        }
    }

    private func removeDisconnected() {
        let lost = state.withLock { s -> [ConnectedFlash] in
            let lost = s.flashes.filter { !$0.connection.isConnected }
            s.flashes.removeAll { !$0.connection.isConnected }
            return lost
        }
        for flash in lost { flash.flash.connectionLost() }
        if flashes.isEmpty { setStatus(.disconnected) }
    }

    // MARK: Connecting once

    /// Which Novas `connect` picks from a scan burst.
    public enum Selection: Sendable, Hashable {
        /// The Nova (by advertised name) with the strongest RSSI.
        case closest
        /// Every Nova seen in the burst.
        case all
        /// The device advertising exactly this local name (the strongest, when several do).
        case named(String)
        /// The device with this address; it must advertise a local name.
        case address(BluetoothAddress)
    }

    /// One scan burst, then connects and hands shakes with the flashes selected. Returns the ones
    /// now ready (also kept in `flashes`).
    @discardableResult
    public func connect(_ selection: Selection) async throws(NovaError) -> [ConnectedFlash] {
        try await filing(NovaError.init(filing:)) { try await connecting(selection) }
    }

    private func connecting(_ selection: Selection) async throws -> [ConnectedFlash] {
        setStatus(.scanning)
        let scanner = central.scanner()
        let seen = try await scanner.scan(for: configuration.scanBurst)
        let novas = seen.filter { device in
            guard let name = device.name else { return false }
            switch selection {
            case .named(let wanted): return name == wanted
            case .address(let address): return device.address == address
            case .closest, .all: return NovaProfile.model(forLocalName: name) != nil
            }
        }.sorted { ($0.rssi ?? -128) > ($1.rssi ?? -128) }
        let chosen = selection == .all ? novas : Array(novas.prefix(1))
        guard !chosen.isEmpty else { return [] }
        setStatus(.connecting)
        var ready: [ConnectedFlash] = []
        for device in chosen {
            let connection = try await central.connect(
                to: device.address, addressType: device.addressType, timeout: configuration.connectTimeout)
            setStatus(.handshaking)
            do {
                let flash = try await makeFlash(connection.gatt)
                let executor = clock.taskExecutor
                flash.setDisconnectHandler { Task(executorPreference: executor) { _ = try? await connection.disconnect() } }
                // The link going down fails every pending and queued command at once.
                Task(executorPreference: executor) { [weak flash] in
                    _ = await connection.disconnected()
                    flash?.connectionLost()
                }
                ready.append(ConnectedFlash(address: device.address, name: device.name ?? "", rssi: device.rssi,
                                            connection: connection, flash: flash))
            } catch {
                _ = try? await connection.disconnect()
                throw error
            }
        }
        state.withLock { $0.flashes.append(contentsOf: ready) }
        setStatus(.ready)
        return ready
    }

    // MARK: Commands to every connected flash

    /// Lights every connected flash at once; returns when each has acknowledged or failed.
    public func beginFlash(_ settings: NovaFlashSettings) async -> [FlashResult] {
        await each { try await $0.beginFlash(settings) }
    }

    /// Turns every connected flash off at once; returns when each has acknowledged or failed.
    public func endFlash() async -> [FlashResult] {
        await each { try await $0.endFlash() }
    }

    /// Pings every connected flash at once; each acknowledgement's `roundTrip` is that flash's.
    public func ping() async -> [FlashResult] {
        await each { try await $0.ping() }
    }

    private func each(_ command: @escaping @Sendable (NovaFlash) async throws -> NovaAcknowledgement) async -> [FlashResult] {
        let targets = flashes
        guard !targets.isEmpty else { return [] }
        state.withLock { $0.commandsInFlight += 1 }
        setStatus(.busy)
        let results = await withTaskGroup(of: FlashResult.self) { group in
            for target in targets {
                group.addTask {
                    do {
                        return FlashResult(address: target.address, result: .success(try await command(target.flash)))
                    } catch {
                        return FlashResult(address: target.address, result: .failure(NovaError(filing: error)))
                    }
                }
            }
            var results: [FlashResult] = []
            for await result in group { results.append(result) }
            return results
        }
        let idle = state.withLock { s -> Bool in
            s.commandsInFlight -= 1
            return s.commandsInFlight == 0
        }
        if idle { setStatus(flashes.isEmpty ? .disconnected : .ready) }
        // In the order the flashes were connected.
        return targets.compactMap { target in results.first { $0.address == target.address } }
    }
}
