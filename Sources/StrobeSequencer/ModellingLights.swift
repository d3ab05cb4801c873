import StrobeLights

/// Continuous lights that light the set between shots and must not light the exposure: on the
/// trigger (after the FLASH commands are out) they go to the shot state, the camera waits for
/// them up to `deadline`, and after the flashes are off each light gets back what it had.
public struct ModellingLights: Sendable {
    /// The lights to dim for each shot.
    public var target: LightTarget
    /// The lights' brightness during the shot; nil: off.
    public var shotBrightness: Double?
    /// The longest the camera waits for the lights' change; then it captures anyway and the
    /// record says why.
    public var deadline: Duration

    /// Lights that go off for the shot unless `shotBrightness` (0...1) is given; the camera waits
    /// for them up to `deadline` (default 150 ms).
    public init(target: LightTarget, shotBrightness: Double? = nil, deadline: Duration = .milliseconds(150)) {
        self.target = target
        self.shotBrightness = shotBrightness
        self.deadline = deadline
    }

    /// The change for the shot, with no transition.
    func shotChange() async throws -> [LightResult] {
        if let shotBrightness { return try await target.setBrightness(shotBrightness, duration: .zero) }
        return try await target.setPower(false, duration: .zero)
    }

    /// Each light back to its own power or brightness from before the shot.
    func restore(_ before: [Light]) async throws -> [LightResult] {
        var results: [LightResult] = []
        for light in before {
            let one = target.client.lightTargetWithSelector(.id(light.id))
            if shotBrightness != nil {
                results += try await one.setBrightness(light.brightness, duration: .zero)
            } else {
                results += try await one.setPower(light.power, duration: .zero)
            }
        }
        return results
    }
}

/// The modelling lights' part in a shot, in the host time of the rest of the record.
public struct ModellingLightsTiming: Sendable, Hashable, Codable {
    /// When the shot state was asked for: always after every FLASH command was issued.
    public var dimIssued: UInt64
    /// When every light had taken the shot state; nil when they did not in time.
    public var dimmed: UInt64?
    /// After every flash's OFF.
    public var restoreIssued: UInt64?
    /// When the restore returned (`lightsRestored` says how many lights took it); nil when it
    /// failed as a whole.
    public var restored: UInt64?
    /// How many lights took the shot state and the restore.
    public var lightsDimmed: Int
    /// How many lights answered `ok` to the restore.
    public var lightsRestored: Int
    /// nil when both steps went through; otherwise what went wrong.
    public var failure: String?
}
