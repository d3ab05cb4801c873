import Foundation
import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// Lights on the LIFX LAN protocol (UDP 56700): discovered by GetService sent to broadcast or
/// unicast addresses, then asked for their state, group and location; driven with SetColor and
/// SetPower, each with ack_required, retried with a doubling timeout. A light that never
/// acknowledges is `timedOut`. Datagrams that are no LIFX message are counted and dropped.
public final class LIFXLANBackend: LightsBackend {
    /// Where and how long the backend looks for lights, and how it retries requests.
    public struct Configuration: Sendable {
        /// Where GetService goes: broadcast addresses, or lights' own addresses.
        public var discoveryHosts: [String]
        /// The UDP port GetService goes to (default 56700); each light answers with its own port in
        /// StateService.
        public var port: UInt16
        /// How long discovery listens for StateService.
        public var discoveryWindow: Duration
        /// Tries per request, the first waiting `firstTimeout`, each later one twice as long.
        public var attempts: Int
        /// How long the first try of a request waits for its answer (default 200 ms).
        public var firstTimeout: Duration
        /// Where the host keeps scenes, LAN lights having none of their own; nil: no scenes.
        public var scenes: LocalScenes?

        /// Defaults: GetService to 255.255.255.255 port 56700, a 500 ms discovery window, 3 tries
        /// from 200 ms, no scenes file.
        public init(discoveryHosts: [String] = ["255.255.255.255"], port: UInt16 = 56700, discoveryWindow: Duration = .milliseconds(500),
                    attempts: Int = 3, firstTimeout: Duration = .milliseconds(200), scenes: LocalScenes? = nil) {
            self.discoveryHosts = discoveryHosts
            self.port = port
            self.discoveryWindow = discoveryWindow
            self.attempts = attempts
            self.firstTimeout = firstTimeout
            self.scenes = scenes
        }
    }

    private struct Key: Hashable {
        var target: UInt64
        var sequence: UInt8
    }

    private struct Pending {
        var expected: UInt16
        var waiter: Waiter<LIFXMessage>
    }

    private struct State {
        var sequence: UInt8 = 0
        var pending: [Key: Pending] = [:]
        /// Discovery in progress: its sequence number and what answered.
        var discovery: (sequence: UInt8, found: [UInt64: UDPEndpoint])?
        var devices: [UInt64: UDPEndpoint] = [:]
    }

    /// The settings the backend was made with.
    public let configuration: Configuration
    /// This client's id in every header (non-zero, so that lights answer it alone).
    public let source: UInt32
    private let discoveryEndpoints: [UDPEndpoint]
    private let state = Lock(State())
    private let malformed = Atomic<Int>(0)
    private let socket = Lock<UDPSocket?>(nil)

    /// Opens a UDP socket that may broadcast, on an ephemeral port, with a random non-zero source
    /// id. Throws `LightsError.badAddress` for a discovery host that is no IPv4 address, or
    /// `LightsError.socket` when the system refuses the socket or its reader thread.
    public init(configuration: Configuration = Configuration()) throws(LightsError) {
        self.configuration = configuration
        source = UInt32.random(in: 2...UInt32.max)
        var endpoints: [UDPEndpoint] = []
        for host in configuration.discoveryHosts { endpoints.append(try UDPEndpoint(host: host, port: configuration.port)) }
        discoveryEndpoints = endpoints
        let opened = try UDPSocket { [weak self] bytes, from in self?.receive(bytes, from: from) }
        socket.withLock { $0 = opened }
    }

    /// Datagrams that were not LIFX messages (or whose fields were out of range).
    public var malformedCount: Int { malformed.load(ordering: .relaxed) }

    /// Closes the socket and fails every request still waiting for an answer.
    public func close() async {
        let open = socket.withLock { s -> UDPSocket? in
            defer { s = nil }
            return s
        }
        open?.close()
        let waiting = state.withLock { s -> [Pending] in
            defer { s.pending = [:] }
            return Array(s.pending.values)
        }
        for pending in waiting { _ = pending.waiter.fail(CancellationError()) }
    }

    // MARK: Receiving

    private func receive(_ bytes: [UInt8], from: UDPEndpoint) {
        let packet: LIFXPacket
        do {
            packet = try LIFXPacket(decoding: bytes)
        } catch {
            malformed.add(1, ordering: .relaxed)
            return
        }
        guard packet.header.source == source else { return }
        let resumed = state.withLock { s -> Pending? in
            if case .stateService(let service, let port) = packet.message, service == 1,
               let discovery = s.discovery, discovery.sequence == packet.header.sequence, packet.header.target != 0,
               let endpoint = try? UDPEndpoint(host: from.host, port: UInt16(port)) {
                s.discovery?.found[packet.header.target] = endpoint
                return nil
            }
            let key = Key(target: packet.header.target, sequence: packet.header.sequence)
            guard let pending = s.pending[key], pending.expected == packet.message.type else { return nil }
            s.pending[key] = nil
            return pending
        }
        _ = resumed?.waiter.succeed(packet.message)
    }

    // MARK: Requests

    private func nextSequence() -> UInt8 {
        state.withLock { s in
            s.sequence &+= 1
            return s.sequence
        }
    }

    private func send(_ packet: LIFXPacket, to endpoint: UDPEndpoint) throws(LightsError) {
        guard let socket = socket.withLock({ $0 }) else { throw .socket(call: "sendto on a closed backend", errno: EBADF) }
        try socket.send(packet.encoded(), to: endpoint)
    }

    /// Sends `message` to one light until it answers with `expected` or the tries run out (nil);
    /// throws the socket's error when a datagram cannot be sent at all.
    func request(_ message: LIFXMessage, target: UInt64, at endpoint: UDPEndpoint, expecting expected: UInt16) async throws(LightsError) -> LIFXMessage? {
        var timeout = configuration.firstTimeout
        for _ in 0..<max(configuration.attempts, 1) {
            let sequence = nextSequence()
            let key = Key(target: target, sequence: sequence)
            let packet = LIFXPacket(message: message, source: source, target: target, sequence: sequence,
                                    ackRequired: expected == LIFXMessage.acknowledgement.type,
                                    resRequired: expected != LIFXMessage.acknowledgement.type)
            let waiter = Waiter<LIFXMessage>()
            state.withLock { $0.pending[key] = Pending(expected: expected, waiter: waiter) }
            defer { state.withLock { _ = $0.pending.removeValue(forKey: key) } }
            try send(packet, to: endpoint)
            // No answer within the timeout is tried again (a cancelled wait too: the tries are few).
            let reply = try? await withTimeout(timeout, clock: ContinuousClock()) { try await waiter.wait() }
            if let reply { return reply }
            timeout *= 2
        }
        return nil
    }

    // MARK: LightsBackend

    /// Discovery, then each light's state, group and location.
    public func fetchLights() async throws(LightsError) -> [Light] {
        try await filing(LightsError.init(filing:)) {
            let sequence = nextSequence()
            state.withLock { $0.discovery = (sequence, [:]) }
            let probe = LIFXPacket(message: .getService, source: source, sequence: sequence, resRequired: true)
            // Twice, half a window apart: one lost datagram does not hide a light.
            do {
                for _ in 0..<2 {
                    for endpoint in discoveryEndpoints { try send(probe, to: endpoint) }
                    try await Task.sleep(for: configuration.discoveryWindow / 2)
                }
            } catch {
                state.withLock { $0.discovery = nil }
                throw error
            }
            let found = state.withLock { s -> [UInt64: UDPEndpoint] in
                let found = s.discovery?.found ?? [:]
                s.discovery = nil
                s.devices.merge(found) { _, new in new }
                return found
            }
            let lights = await withTaskGroup(of: Light.self) { group in
                for (target, endpoint) in found {
                    group.addTask { await self.describe(target, at: endpoint) }
                }
                var lights: [Light] = []
                for await light in group { lights.append(light) }
                return lights
            }
            return lights.sorted { $0.id < $1.id }
        }
    }

    private func describe(_ target: UInt64, at endpoint: UDPEndpoint) async -> Light {
        // A light whose datagrams cannot be sent is described as one that did not answer:
        // not connected.
        async let lightState = try? request(.get, target: target, at: endpoint, expecting: 107)
        async let group = try? request(.getGroup, target: target, at: endpoint, expecting: 53)
        async let location = try? request(.getLocation, target: target, at: endpoint, expecting: 50)
        let serial = LIFXHeader.serial(of: target)
        var light = Light(id: serial, label: serial, power: false, brightness: 0, color: .white(kelvin: 3500), connected: false)
        if case .lightState(let hsbk, let power, let label)? = await lightState {
            light.label = label
            light.power = power > 0
            light.brightness = hsbk.level
            light.color = hsbk.color
            light.connected = true
        }
        if case .stateGroup(let id, let label, _)? = await group {
            light.group = LightGroup(id: Self.hex(id), name: label)
        }
        if case .stateLocation(let id, let label, _)? = await location {
            light.location = LightLocation(id: Self.hex(id), name: label)
        }
        return light
    }

    private static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The scenes of `configuration.scenes` (none without it); throws `LightsError.scenesFile` for
    /// a file that cannot be read.
    public func fetchScenes() async throws(LightsError) -> [Scene] { try configuration.scenes?.load() ?? [] }

    /// SetColor (when colour or brightness change) and SetPower (when power does), each
    /// acknowledged, for every light at once.
    public func apply(_ change: LightStateChange, selector: LightSelector, to lights: [Light]) async throws(LightsError) -> [LightResult] {
        let devices = state.withLock { $0.devices }
        return await eachLight(lights) { light in
            guard let target = LIFXHeader.target(serial: light.id), let endpoint = devices[target] else {
                return LightResult(id: light.id, label: light.label, status: .offline)
            }
            var answered = true
            let duration = change.milliseconds
            do throws(LightsError) {
                if change.color != nil || change.brightness != nil {
                    let hsbk = LIFXHSBK(color: light.color, brightness: light.brightness)
                    answered = try await self.request(.setColor(hsbk, durationMilliseconds: duration), target: target, at: endpoint,
                                                      expecting: LIFXMessage.acknowledgement.type) != nil
                }
                if answered, let power = change.power {
                    answered = try await self.request(.setPower(level: power ? 65535 : 0, durationMilliseconds: duration), target: target,
                                                      at: endpoint, expecting: LIFXMessage.acknowledgement.type) != nil
                }
            } catch {
                // Its datagrams cannot be sent: it cannot be reached.
                return LightResult(id: light.id, label: light.label, status: .offline)
            }
            return LightResult(id: light.id, label: light.label, status: answered ? .ok : .timedOut)
        }
    }

    /// Applies the scene's states in turn through `apply` (`activateLocally`); `duration` is each
    /// state's transition.
    public func activate(_ scene: Scene, duration: Duration, lights: [Light]) async throws(LightsError) -> [LightResult] {
        try await activateLocally(scene, duration: duration, lights: lights)
    }
}
