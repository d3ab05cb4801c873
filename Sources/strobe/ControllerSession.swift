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
    private let recorder: BtsnoopRecorder?

    static func open(_ options: GlobalOptions) async throws -> ControllerSession {
        let spec = try options.transportSpec()
        var transport = try spec.openIncludingSimulatedWorld()
        let hostTime: @Sendable () -> HostTime
        // A controller that falls silent fails the command within 5 + 2 s instead of looking idle.
        var configuration = HCIController.Configuration(livenessProbeInterval: .seconds(5), logger: options.logger)
        if let sim = transport as? SimTransport {
            let air = sim.world.air
            hostTime = { air.hostTime() }
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
        let controller = HCIController(transport: transport, configuration: configuration)
        do {
            let info = try await controller.open()
            return ControllerSession(controller: controller, info: info, hostTime: hostTime, recorder: recorder)
        } catch {
            try? recorder?.finishRecording()
            throw error
        }
    }

    /// Resets nothing the user did not ask for: closes the link and completes the recording.
    func close() throws {
        controller.close()
        try recorder?.finishRecording()
    }
}
