import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// Bluetooth LE lights speaking the LEDnet ("Triones") protocol, through Strobe's own GATT
/// client: found by their advertised names, connected and kept connected, driven with Write
/// Commands; every operation ends with a state query, so a light that does not answer it in
/// time is `timedOut` and one whose link is gone is `offline`.
public final class LEDnetBackend: LightsBackend {
    /// How long the backend scans, connects and waits for answers, and which lights it takes.
    public struct Configuration: Sendable {
        /// How long each `fetchLights` scans for advertisements (default 2 s).
        public var scanDuration: Duration
        /// How long a light has to answer a state query.
        public var answerTimeout: Duration
        /// How long a connection to a light may take to be established (default 5 s).
        public var connectTimeout: Duration
        /// Where the host keeps scenes, Bluetooth lights having none of their own; nil: no scenes.
        public var scenes: LocalScenes?
        /// Only lights with these names (nil: every LEDnet name).
        public var names: Set<String>?

        /// Defaults: scan 2 s, wait 2 s for a state answer, 5 s to connect, no scenes file, every
        /// LEDnet name.
        public init(scanDuration: Duration = .seconds(2), answerTimeout: Duration = .seconds(2), connectTimeout: Duration = .seconds(5),
                    scenes: LocalScenes? = nil, names: Set<String>? = nil) {
            self.scanDuration = scanDuration
            self.answerTimeout = answerTimeout
            self.connectTimeout = connectTimeout
            self.scenes = scenes
            self.names = names
        }
    }

    private struct Link {
        var name: String
        var connection: LEConnection
        var write: AttributeHandle
        var receiver: LEDnetStateReceiver
    }

    /// The central whose controller scans for the lights and connects to them.
    public let central: Central
    /// The settings the backend was made with.
    public let configuration: Configuration
    private let links = Lock<[String: Link]>([:])

    /// A backend that scans and connects through `central`; nothing is sent until `fetchLights`.
    package init(central: Central, configuration: Configuration = Configuration()) {
        self.central = central
        self.configuration = configuration
    }

    /// State notifications that were no state frame, over every light.
    public var malformedCount: Int { links.withLock { $0.values.map(\.receiver.malformedCount).reduce(0, +) } }

    /// Disconnects every light the backend connected, even when one fails to; the first failure
    /// is thrown after.
    public func close() async throws(LightsError) {
        let open = links.withLock { l -> [Link] in
            defer { l = [:] }
            return Array(l.values)
        }
        do {
            try await open.map(\.connection).disconnectAll()
        } catch {
            throw LightsError(filing: error)
        }
    }

    // MARK: LightsBackend

    /// Scans, connects the lights not yet connected, and asks each for its state.
    public func fetchLights() async throws(LightsError) -> [Light] {
        try await filing(LightsError.init(filing:)) {
            let found = try await central.scanner().scan(for: configuration.scanDuration)
                .filter { LEDnetProfile.isLight(name: $0.name) && (configuration.names?.contains($0.name ?? "") ?? true) }
            for device in found where links.withLock({ $0[device.address.description]?.connection.isConnected }) != true {
                let connection = try await central.connect(to: device.address, addressType: device.addressType, timeout: configuration.connectTimeout)
                do {
                    let link = try await Self.attach(connection, name: device.name ?? device.address.description, clock: central.clock)
                    links.withLock { $0[device.address.description] = link }
                } catch {
                    _ = try? await connection.disconnect()
                    throw error
                }
            }
            let current = links.withLock { $0 }
            return await withTaskGroup(of: Light?.self) { group in
                for (id, link) in current where link.connection.isConnected {
                    group.addTask {
                        guard let state = await self.queryState(link) else {
                            return Light(id: id, label: link.name, power: false, brightness: 0, color: .white(kelvin: 2700), connected: false)
                        }
                        let (brightness, color) = state.brightnessAndColor
                        return Light(id: id, label: link.name, power: state.power, brightness: brightness, color: color)
                    }
                }
                var lights: [Light] = []
                for await light in group { if let light { lights.append(light) } }
                return lights.sorted { $0.id < $1.id }
            }
        }
    }

    /// Finds the write and notify characteristics and subscribes to the notifications.
    private static func attach(_ connection: LEConnection, name: String, clock: any Clock<Duration>) async throws -> Link {
        let gatt = connection.gatt
        let services = try await gatt.discoverPrimaryServices()
        var write: GATTCharacteristic?
        var notify: GATTCharacteristic?
        for service in services {
            for characteristic in try await gatt.discoverCharacteristics(of: service) {
                if write == nil, LEDnetProfile.writeCharacteristics.contains(characteristic.uuid),
                   !characteristic.properties.isDisjoint(with: [.write, .writeWithoutResponse]) {
                    write = characteristic
                }
                if notify == nil, LEDnetProfile.notifyCharacteristics.contains(characteristic.uuid), characteristic.properties.contains(.notify) {
                    notify = characteristic
                }
            }
        }
        guard let write, let notify else {
            throw LightsError.notALight(address: connection.peerAddress.description, services: services.map(\.uuid.description))
        }
        let receiver = LEDnetStateReceiver(clock: clock)
        try await gatt.subscribe(notify, handler: receiver)
        return Link(name: name, connection: connection, write: write.valueHandle, receiver: receiver)
    }

    private func queryState(_ link: Link) async -> LEDnetState? {
        await link.receiver.nextState(within: configuration.answerTimeout) {
            try await link.connection.gatt.writeWithoutResponse(LEDnetCommand.queryState.bytes, handle: link.write)
        }
    }

    /// The scenes of `configuration.scenes` (none without it); throws `LightsError.scenesFile` for
    /// a file that cannot be read.
    public func fetchScenes() async throws(LightsError) -> [Scene] { try configuration.scenes?.load() ?? [] }

    /// Power, then colour, as Write Commands; then a state query that must come back.
    public func apply(_ change: LightStateChange, selector: LightSelector, to lights: [Light]) async throws(LightsError) -> [LightResult] {
        let current = links.withLock { $0 }
        return await eachLight(lights) { light in
            guard let link = current[light.id], link.connection.isConnected else {
                return LightResult(id: light.id, label: light.label, status: .offline)
            }
            var commands: [LEDnetCommand] = []
            if let power = change.power { commands.append(.power(power)) }
            if change.color != nil || change.brightness != nil { commands.append(LEDnetCommand.color(of: light)) }
            do {
                for command in commands {
                    try await link.connection.gatt.writeWithoutResponse(command.bytes, handle: link.write)
                }
            } catch {
                return LightResult(id: light.id, label: light.label, status: link.connection.isConnected ? .timedOut : .offline)
            }
            let answered = await self.queryState(link) != nil
            return LightResult(id: light.id, label: light.label, status: answered ? .ok : .timedOut)
        }
    }

    /// Applies the scene's states in turn through `apply` (`activateLocally`); these lights have
    /// no transitions, so `duration` has no effect.
    public func activate(_ scene: Scene, duration: Duration, lights: [Light]) async throws(LightsError) -> [LightResult] {
        try await activateLocally(scene, duration: duration, lights: lights)
    }
}
