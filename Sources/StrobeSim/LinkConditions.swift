/// How the virtual air treats packets between two devices: a fixed latency, a random extra
/// delay up to `jitter`, and a chance that a packet is lost (retransmitted at the next connection
/// event, as the link layer does; an advertisement is simply missed).
package struct LinkConditions: Sendable, Hashable, Codable {
    package var latency: Duration
    package var jitter: Duration
    package var loss: Double

    package init(latency: Duration = .zero, jitter: Duration = .zero, loss: Double = 0) {
        self.latency = latency
        self.jitter = jitter
        self.loss = min(max(loss, 0), 1)
    }

    package static let perfect = LinkConditions()
}
