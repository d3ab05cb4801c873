/// Which lights an operation addresses, in the LIFX HTTP API's selector syntax: `all`, `id:ID`,
/// `group_id:ID`, `location_id:ID`, `scene_id:UUID`, `label:LABEL`.
public enum LightSelector: Sendable, Hashable, CustomStringConvertible, Codable {
    /// `all`: every light.
    case all
    /// `id:ID`: the light whose `Light.id` is ID.
    case id(String)
    /// `group_id:ID`: the lights of the group whose `LightGroup.id` is ID.
    case groupID(String)
    /// `location_id:ID`: the lights of the location whose `LightLocation.id` is ID.
    case locationID(String)
    /// `scene_id:UUID`: the lights the scene's states name; the only target `restoreState` takes.
    case sceneID(String)
    /// `label:LABEL`: the lights whose label is exactly LABEL.
    case label(String)

    /// Parses selector text such as `group_id:1c8de82b`; throws `LightsError.badSelector` for
    /// an unknown prefix, a missing colon or an empty value.
    public init(_ text: String) throws(LightsError) {
        if text == "all" {
            self = .all
            return
        }
        guard let colon = text.firstIndex(of: ":") else { throw .badSelector(text) }
        let value = String(text[text.index(after: colon)...])
        guard !value.isEmpty else { throw .badSelector(text) }
        switch text[..<colon] {
        case "id": self = .id(value)
        case "group_id": self = .groupID(value)
        case "location_id": self = .locationID(value)
        case "scene_id": self = .sceneID(value)
        case "label": self = .label(value)
        default: throw .badSelector(text)
        }
    }

    /// The selector in the HTTP API's syntax, as `init(_:)` parses it.
    public var description: String {
        switch self {
        case .all: "all"
        case .id(let id): "id:\(id)"
        case .groupID(let id): "group_id:\(id)"
        case .locationID(let id): "location_id:\(id)"
        case .sceneID(let id): "scene_id:\(id)"
        case .label(let label): "label:\(label)"
        }
    }

    /// Whether `light` is addressed; a scene selector addresses the lights its states name.
    public func matches(_ light: Light, scenes: [Scene] = []) -> Bool {
        switch self {
        case .all: true
        case .id(let id): light.id == id
        case .groupID(let id): light.group?.id == id
        case .locationID(let id): light.location?.id == id
        case .label(let label): light.label == label
        case .sceneID(let id):
            scenes.first { $0.id == id }?.states.contains { $0.selector != self && $0.selector.matches(light) } ?? false
        }
    }

    /// Decodes a selector from its text (a JSON string); throws `LightsError.badSelector` for
    /// text that is no selector.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = try LightSelector(text)
    }

    /// Encodes the selector as its text (`description`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
