/// How long a stream transport's reader holds off after a read that brought ACL data, before it
/// reads again: interrupt coalescing (a NIC's `rx-usecs`) for H4 over a socket or a tty. Off by
/// default, and for latency-sensitive links it should stay off.
///
/// While a link streams, a reader that takes each PDU as it completes wakes once a PDU, and over
/// TCP each read that empties the socket makes the kernel acknowledge at once. The sender then
/// never has unacknowledged data, so each small H4 packet leaves it as a segment of its own, and a
/// sender that is short of CPU (a user-space controller or bridge) pays for every one. Holding
/// off lets the bytes pile up: one read takes many PDUs, the acknowledgements thin out and the
/// sender's writes coalesce. The price is latency: whatever arrives during the hold waits for
/// its end, up to `microseconds` more, and each packet is stamped with the time of the read
/// that took it. No hold starts after a read of events alone, nor while the host awaits a
/// command's answer or credits for data it sent. ATT responses are ACL data, so each request
/// and response exchange may wait up to the hold: it suits a peer's streams (notifications,
/// writes without response), not request after request. On TCP it takes the place of the
/// receive low-water mark.
public struct ReadCoalescing: Sendable, Hashable, CustomStringConvertible {
    /// The longest hold: it bounds the latency added and how long `close()` may wait for the
    /// reader.
    public static let maximumMicroseconds = 10_000

    /// Each read is followed at once by the next: the default.
    public static let off = ReadCoalescing(checkedMicroseconds: 0)

    /// The hold after a read that brought ACL data, in microseconds; 0 is off.
    public let microseconds: Int

    /// A hold of `microseconds` (0 is off), or nil outside `0...maximumMicroseconds`.
    public init?(microseconds: Int) {
        guard (0...Self.maximumMicroseconds).contains(microseconds) else { return nil }
        self.microseconds = microseconds
    }

    private init(checkedMicroseconds: Int) {
        microseconds = checkedMicroseconds
    }

    /// Whether there is no hold: each read is followed at once by the next.
    public var isOff: Bool { microseconds == 0 }

    /// "off", or the hold, such as "250 µs".
    public var description: String { isOff ? "off" : "\(microseconds) µs" }
}
