/// What went wrong with a light operation that is not one light's result: a bad selector, a
/// target that has no scene, or the backend's own failure (`LIFXHTTPError`, `LIFXLANError`,
/// `LEDnetError` carry their details).
public enum LightsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Text that is no selector (see `LightSelector`).
    case badSelector(String)
    /// `restoreState` on a target that is not a scene.
    case notASceneTarget(LightSelector)
    /// A scene id the client does not know (not in the last `fetch()`).
    case noSuchScene(String)
    /// No known light matches the selector; nothing was sent.
    case noLights(LightSelector)
    /// A value outside what lights accept (brightness 0...1, kelvin 1500...9000, ...).
    case badValue(String)
    /// The local scenes file could not be read or written.
    case scenesFile(path: String, reason: String)

    /// What went wrong, as a sentence for a user.
    public var description: String {
        switch self {
        case .badSelector(let text):
            "'\(text)' is no selector (all, id:ID, group_id:ID, location_id:ID, scene_id:UUID or label:LABEL)"
        case .notASceneTarget(let selector): "\(selector) is not a scene: only scene targets can be restored"
        case .noSuchScene(let name): "no scene '\(name)'"
        case .noLights(let selector): "no light matches \(selector)"
        case .badValue(let reason): reason
        case .scenesFile(let path, let reason): "cannot use the scenes file \(path): \(reason)"
        }
    }
}
