import Strobe
import StrobeSim

/// An opened host for one command: the transport the user named, recorded to a btsnoop file
/// when `--btsnoop` is given, and the controller's init sequence already run.
struct ControllerSession {
    let host: BluetoothHost
    /// The clock the transport stamps received packets with: the simulated air's own time on
    /// the simulated world, the host's monotonic time otherwise.
    let hostTime: @Sendable () -> HostTime
    private let recorder: BtsnoopRecorder?

    var controller: HCIController { host.controller }
    var info: ControllerInfo { host.info }
    /// What the command waits on: the simulated world's clock on it, the real one otherwise.
    var clock: any Clock<Duration> { host.clock }
    var central: Central { host.central }

    /// Opens the host; `configure` adds what the command's options ask of it (the MTU to offer,
    /// how to pair, where bonds go).
    static func open(_ options: GlobalOptions, configure: (inout BluetoothHost.Configuration) throws -> Void = { _ in })
        async throws -> ControllerSession {
        let spec = try options.transportSpec()
        var transport = try spec.openIncludingSimulatedWorld(readCoalescing: try options.readCoalescingSetting(for: spec))
        let hostTime: @Sendable () -> HostTime
        // A controller that falls silent fails the command within 5 + 2 s instead of looking idle.
        var configuration = BluetoothHost.Configuration(livenessProbeInterval: .seconds(5), logger: options.logger)
        if let sim = transport as? SimTransport {
            let air = sim.world.air
            hostTime = { air.hostTime() }
            // The simulated world runs in this process and answers every command at once: a late
            // answer means a busy machine, not a silent controller (over TCP the same world is
            // given the default 2 s, and makes it on a loaded machine).
            configuration.commandTimeout = .seconds(5)
        } else {
            hostTime = { HostTime.now() }
        }
        try configure(&configuration)
        var recorder: BtsnoopRecorder?
        if let path = options.btsnoop {
            let tee = try BtsnoopRecorder(wrapping: transport, path: path)
            recorder = tee
            transport = tee
        }
        do {
            let host = try await BluetoothHost(transport: transport, configuration: configuration)
            return ControllerSession(host: host, hostTime: hostTime, recorder: recorder)
        } catch {
            try? recorder?.finishRecording()
            throw error
        }
    }

    /// Resets nothing the user did not ask for: closes the link and completes the recording.
    func close() throws {
        host.close()
        try recorder?.finishRecording()
    }

    /// Runs a command's work on the session, then closes it: a close that failed (a recording
    /// left incomplete) fails a command that succeeded; a command that failed keeps its own error.
    func closing<T>(_ body: () async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body()
        } catch {
            try? close()
            throw error
        }
        try close()
        return result
    }
}
