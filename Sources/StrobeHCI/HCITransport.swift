/// A link to one controller that carries H4 packets: the kernel's HCI user channel, H4 over a
/// stream (TCP, unix socket, serial tty), a btsnoop replay, or a simulated controller.
///
/// Received packets are delivered on the transport's own reader thread, one call per complete
/// packet, as a view into the reader's buffer: nothing is copied or allocated per packet.
public protocol HCITransport: AnyObject, Sendable {
    /// A short human-readable name, such as `tcp:127.0.0.1:9001`.
    var name: String { get }

    /// Starts the reader. Every packet received from now on goes to `sink`.
    /// Throws when the link cannot be used.
    func start(_ sink: any HCIPacketSink) throws(TransportError)

    /// Writes one whole H4 packet (packet type byte first) with a single write,
    /// completing partial writes. Safe to call from any thread.
    func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError)

    /// Stops the reader and releases the link. `HCIPacketSink.transportDidClose(_:)` follows once.
    /// Closing twice is harmless.
    func close()

    /// The clock the controller behind this link keeps time on, for the host above it to wait
    /// on too: the real one (`ContinuousClock`) unless the controller is simulated.
    var clock: any Clock<Duration> { get }
}

extension HCITransport {
    /// The real clock, `ContinuousClock`: the default for a transport to a real controller.
    public var clock: any Clock<Duration> { ContinuousClock() }

    /// Writes one whole H4 packet held in an array (a convenience for control-plane traffic).
    public func send(_ h4Packet: [UInt8]) throws(TransportError) {
        // `withUnsafeBytes` rethrows untyped: the error is carried out of it by hand.
        let failure: TransportError? = h4Packet.withUnsafeBytes { bytes in
            do throws(TransportError) { try send(bytes) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }
}

/// Where a transport delivers what it reads.
public protocol HCIPacketSink: AnyObject, Sendable {
    /// One complete packet. `payload` excludes the H4 type byte and is valid only during the call.
    /// `time` is when its bytes were read.
    func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime)

    /// The packets of one read have all been delivered. A transport that reads several packets
    /// at once calls this after each read's last one, so that what they fed (a ring's consumer)
    /// is woken once per read rather than once per packet. Until a transport first calls it, the
    /// controller treats every packet as a read of its own.
    func transportDidFinishBatch()

    /// The transport stopped delivering: `nil` when closed by the host, otherwise why.
    /// Called exactly once per `start`.
    func transportDidClose(_ error: TransportError?)

    /// How a transport's reader thread, one of its own that delivers to this sink, asks to be
    /// run: the sink's packets wait for it.
    var readerScheduling: ThreadScheduling { get }
}

extension HCIPacketSink {
    /// As any other thread.
    public var readerScheduling: ThreadScheduling { .normal }

    /// Does nothing: a sink that has no wake-ups to batch can ignore the end of a read.
    public func transportDidFinishBatch() {}
}
