/// The JSON shapes of the LIFX HTTP API v1, as documented.
enum LIFXHTTPShapes {
    struct Light: Decodable {
        struct Color: Decodable {
            var hue: Double
            var saturation: Double
            var kelvin: Int
        }

        struct Named: Decodable {
            var id: String
            var name: String
        }

        var id: String
        var label: String
        var connected: Bool
        var power: String
        var brightness: Double
        var color: Color
        var group: Named?
        var location: Named?
    }

    struct Result: Codable {
        var id: String
        var label: String
        var status: String
    }

    struct Results: Decodable {
        var results: [Result]
    }

    /// `PUT /lights/states` answers one entry per state, each with its lights' results.
    struct StatesResults: Decodable {
        struct Entry: Decodable {
            var results: [Result]
        }

        var results: [Entry]
    }

    struct Scene: Decodable {
        struct State: Decodable {
            var selector: String
            var power: String?
            var brightness: Double?
            var color: Light.Color?
        }

        var uuid: String
        var name: String
        var states: [State]
    }

    struct ErrorBody: Decodable {
        var error: String
    }

    /// The body of `PUT /lights/{selector}/state` and of each `PUT /lights/states` entry.
    struct StateBody: Encodable {
        var selector: String?
        var power: String?
        var color: String?
        var brightness: Double?
        var duration: Double?
        var fast: Bool?
    }

    struct StatesBody: Encodable {
        var states: [StateBody]
    }

    struct ActivateBody: Encodable {
        var duration: Double
    }
}
