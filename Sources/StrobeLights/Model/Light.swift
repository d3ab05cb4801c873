import Foundation

/// One light as the client last knew it.
public struct Light: Sendable, Hashable, Identifiable {
    /// The light's identity, as `id:ID` selects it: the HTTP API's id, a LAN light's serial (its
    /// MAC as twelve hex digits) or a Bluetooth light's device address.
    public var id: String
    /// The light's name as it reports it (a Bluetooth light's advertised name); a LAN light that
    /// did not answer is labelled with its serial.
    public var label: String
    /// True when the light is on.
    public var power: Bool
    /// 0...1.
    public var brightness: Double
    /// Hue, saturation and white point; the light's brightness is `brightness`.
    public var color: LightColor
    /// The group it belongs to; nil when the backend reports none (Bluetooth lights have none).
    public var group: LightGroup?
    /// The location it belongs to; nil when the backend reports none (Bluetooth lights have none).
    public var location: LightLocation?
    /// False when the light did not answer its last operation or the backend reports it offline.
    public var connected: Bool
    /// When this client last changed it or heard it change.
    public var touchedAt: Date?

    /// A light in the given state; connected and never touched unless said otherwise.
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
    /// The id `group_id:ID` selects: the HTTP API's, or on the LAN the 16-byte group id as 32 hex
    /// digits.
    public var id: String
    /// The group's label, which a group target takes as its own.
    public var name: String
    /// A group with the id `group_id:ID` selects and its label.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// The location a light belongs to (a home or a studio).
public struct LightLocation: Sendable, Hashable, Codable {
    /// The id `location_id:ID` selects: the HTTP API's, or on the LAN the 16-byte location id as
    /// 32 hex digits.
    public var id: String
    /// The location's label, which a location target takes as its own.
    public var name: String
    /// A location with the id `location_id:ID` selects and its label.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}
