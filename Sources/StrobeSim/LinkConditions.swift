/// How the virtual air treats packets between two devices: a fixed latency, a random extra
/// delay up to `jitter`, and a chance that a packet is lost (retransmitted at the next connection
/// event, as the link layer does; an advertisement is simply missed).
public struct LinkConditions: Sendable, Hashable, Codable {
    public var latency: Duration
    public var jitter: Duration
    public var loss: Double

    public init(latency: Duration = .zero, jitter: Duration = .zero, loss: Double = 0) {
        self.latency = latency
        self.jitter = jitter
        self.loss = min(max(loss, 0), 1)
    }

    public static let perfect = LinkConditions()
}
