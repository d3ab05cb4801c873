/// How one light took an operation, as the LIFX HTTP API's 207 results say it.
public struct LightResult: Sendable, Hashable, Codable {
    /// How the light took it, with the HTTP API's `status` strings as raw values.
    public enum Status: String, Sendable, Hashable, Codable {
        /// `ok`: the light took the change (it acknowledged, or answered the state query).
        case ok
        /// `timed_out`: the light did not answer in time; the client reverts it and marks it
        /// disconnected.
        case timedOut = "timed_out"
        /// `offline`: the light cannot be reached (no address or no connected link); the client
        /// reverts it and marks it disconnected.
        case offline
    }

    /// The light's `Light.id`.
    public var id: String
    /// The light's label, as the backend reported it with the result.
    public var label: String
    /// Whether the light took the operation.
    public var status: Status

    /// One light's result, as a backend reports it.
    public init(id: String, label: String, status: Status) {
        self.id = id
        self.label = label
        self.status = status
    }
}
