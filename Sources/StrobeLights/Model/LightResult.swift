/// How one light took an operation, as the LIFX HTTP API's 207 results say it.
public struct LightResult: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable {
        case ok
        case timedOut = "timed_out"
        case offline
    }

    public var id: String
    public var label: String
    public var status: Status

    public init(id: String, label: String, status: Status) {
        self.id = id
        self.label = label
        self.status = status
    }
}
