import Foundation

/// One light as the client last knew it.
public struct Light: Sendable, Hashable, Identifiable {
    public var id: String
    public var label: String
    public var power: Bool
    /// 0...1.
    public var brightness: Double
    public var color: LightColor
    public var group: LightGroup?
    public var location: LightLocation?
    /// False when the light did not answer its last operation or the backend reports it offline.
    public var connected: Bool
    /// When this client last changed it or heard it change.
    public var touchedAt: Date?

    public init(id: String, label: String, power: Bool, brightness: Double, color: LightColor,
                group: LightGroup? = nil, location: LightLocation? = nil, connected: Bool = true, touchedAt: Date? = nil) {
        self.id = id
        self.label = label
        self.power = power
        self.brightness = brightness
        self.color = color
        self.group = group
        self.location = location
        self.connected = connected
        self.touchedAt = touchedAt
    }

    /// The same light with the state it reports, ignoring when it was touched.
    func sameState(as other: Light) -> Bool {
        var a = self, b = other
        a.touchedAt = nil
        b.touchedAt = nil
        return a == b
    }
}

/// The group a light belongs to (a room, in the LIFX app's words).
public struct LightGroup: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// The location a light belongs to (a home or a studio).
public struct LightLocation: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}
