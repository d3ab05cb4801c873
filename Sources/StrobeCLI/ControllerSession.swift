import Strobe
import StrobeSim

/// An opened controller for one command: the transport the user named, recorded to a btsnoop
/// file when `--btsnoop` is given, and the HCI init sequence already run.
struct ControllerSession {
    let controller: HCIController
    let info: ControllerInfo
    /// The clock the transport stamps received packets with: the simulated air's own time on
    /// the simulated world, the host's monotonic time otherwise.
    let hostTime: @Sendable () -> HostTime
    /// What the command waits on: the simulated world's clock on it, the real one otherwise.
    let clock: any Clock<Duration>
    private let recorder: BtsnoopRecorder?

    static func open(_ options: GlobalOptions) async throws -> ControllerSession {
        let spec = try options.transportSpec()
        var transport = try spec.openIncludingSimulatedWorld()
        let hostTime: @Sendable () -> HostTime
        var clock: any Clock<Duration> = ContinuousClock()
        // A controller that falls silent fails the command within 5 + 2 s instead of looking idle.
        var configuration = HCIController.Configuration(livenessProbeInterval: .seconds(5), logger: options.logger)
        if let sim = transport as? SimTransport {
            let air = sim.world.air
            hostTime = { air.hostTime() }
            clock = sim.clock
            // The simulated world runs in this process and answers every command at once: a late
            // answer means a busy machine, not a silent controller.
            configuration.commandTimeout = .seconds(15)
        } else {
            hostTime = { HostTime.now() }
        }
        var recorder: BtsnoopRecorder?
        if let path = options.btsnoop {
            let tee = try BtsnoopRecorder(wrapping: transport, path: path)
            recorder = tee
            transport = tee
        }
        let controller = HCIController(transport: transport, clock: clock, configuration: configuration)
        do {
            let info = try await controller.open()
            return ControllerSession(controller: controller, info: info, hostTime: hostTime, clock: clock, recorder: recorder)
        } catch {
            try? recorder?.finishRecording()
            throw error
        }
    }

    /// A central on the session's controller and clock.
    func central(configuration: Central.Configuration = Central.Configuration(), security: SecurityManager = SecurityManager()) -> Central {
        Central(controller: controller, clock: clock, configuration: configuration, security: security)
    }

    /// Resets nothing the user did not ask for: closes the link and completes the recording.
    func close() throws {
        controller.close()
        try recorder?.finishRecording()
    }
}
