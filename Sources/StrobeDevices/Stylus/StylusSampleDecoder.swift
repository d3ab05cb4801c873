import StrobeHCI

/// Turns a pen's Samples notifications into timed `StylusEvent`s, in place: each notification is
/// validated as a `StylusBatchView` and its samples handed to a caller's closure one by one, with
/// no allocation on the way.
///
/// Timestamps are on the host clock (`HostTime`, the stamp the transport put on the
/// notification), paced by the pen's own `dt_us`:
/// - The first batch, and the first after lost or out-of-order batches (where the time the lost
///   batches covered is unknown), is anchored so that its last sample is stamped with the
///   notification's arrival time.
/// - Otherwise each batch continues from the previous batch's last sample, so link jitter does
///   not reach the timestamps.
/// - The chain is re-anchored on arrival when it runs ahead of arrival (a sample cannot be stamped
///   after it was received) or lags it by more than `maximumLag` (pen and host clocks drift).
/// Timestamps never go backwards.
///
/// Side-button presses are also reported as the action the button map gives them.
public struct StylusSampleDecoder: Sendable {
    public struct Counters: Sendable, Hashable {
        public var batches: UInt64 = 0
        public var samples: UInt64 = 0
        /// Batches the sequence numbers say were never received.
        public var lostBatches: UInt64 = 0
        /// Batches whose sequence number repeated or went back.
        public var outOfOrderBatches: UInt64 = 0
        public var malformedBatches: UInt64 = 0
        /// Times the timestamp chain was re-anchored to arrival time (not counting first batches
        /// and gaps).
        public var reanchors: UInt64 = 0
        public var sideButtonActions: UInt64 = 0
        public init() {}
    }

    public var buttonMap: StylusButtonMap
    /// How far the reconstructed time may fall behind arrival before it is re-anchored.
    public var maximumLag: Duration

    public private(set) var counters = Counters()
    public private(set) var sequence = SequenceNumberTracker()
    public private(set) var lastError: StylusDecodingError?
    /// The buttons of the last sample delivered.
    public private(set) var buttons: StylusButtons = []
    /// The timestamp of the last sample delivered.
    public private(set) var lastSampleTime: HostTime?

    public init(buttonMap: StylusButtonMap = .unassigned, maximumLag: Duration = .milliseconds(50)) {
        self.buttonMap = buttonMap
        self.maximumLag = maximumLag
    }

    /// Decodes one notification received at `receivedAt` and hands its events to `sink`.
    /// A malformed batch delivers nothing, is counted and throws. Returns the samples delivered.
    @discardableResult
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, receivedAt: HostTime, _ sink: (StylusEvent) -> Void
    ) throws(StylusDecodingError) -> Int {
        let batch: StylusBatchView
        do {
            batch = try StylusBatchView(bytes)
        } catch {
            counters.malformedBatches += 1
            lastError = error
            throw error
        }
        consume(batch, receivedAt: receivedAt, sink)
        return batch.count
    }

    /// Delivers the events of an already validated batch.
    public mutating func consume(_ batch: StylusBatchView, receivedAt: HostTime, _ sink: (StylusEvent) -> Void) {
        counters.batches += 1
        let continues: Bool
        switch sequence.observe(batch.sequence) {
        case .inOrder:
            continues = true
        case .first:
            continues = false
        case .gap(let lost):
            counters.lostBatches += UInt64(lost)
            continues = false
        case .outOfOrder:
            counters.outOfOrderBatches += 1
            continues = false
        }

        let span = UInt64(batch.totalDeltaMicroseconds) * 1000
        let arrival = receivedAt.nanoseconds
        var last = arrival
        if continues, let previous = lastSampleTime?.nanoseconds {
            let chained = previous &+ span
            if chained > arrival || arrival - chained > Self.nanoseconds(maximumLag) {
                counters.reanchors += 1
            } else {
                last = chained
            }
        }
        // Each sample is stamped back from the last one by the time after it; a batch that claims
        // more time than the clock has (just after start-up) is clamped at 0.
        var after = span - UInt64(batch[0].deltaMicroseconds) * 1000
        let floor = lastSampleTime?.nanoseconds ?? 0

        for index in batch.indices {
            let sample = batch[index]
            if index > 0 { after -= UInt64(sample.deltaMicroseconds) * 1000 }
            let time = last >= after ? last - after : 0
            let stamp = HostTime(nanoseconds: max(time, floor))
            sink(.sample(sample, timestamp: stamp))
            if sample.buttons != buttons {
                sink(.buttonsChanged(from: buttons, to: sample.buttons, timestamp: stamp))
                // Explicit per button: `allCases` would build an array on this path.
                let pressed = sample.buttons.subtracting(buttons)
                if pressed.contains(.sideButton1) { reportPress(.side1, at: stamp, sink) }
                if pressed.contains(.sideButton2) { reportPress(.side2, at: stamp, sink) }
                buttons = sample.buttons
            }
            lastSampleTime = stamp
        }
        counters.samples += UInt64(batch.count)
    }

    private mutating func reportPress(_ side: StylusSideButton, at stamp: HostTime, _ sink: (StylusEvent) -> Void) {
        let action = buttonMap[side]
        guard action != .none else { return }
        counters.sideButtonActions += 1
        sink(.sideButtonAction(action, button: side, timestamp: stamp))
    }

    /// A new connection: the next batch starts a new sequence count and timestamp chain, with no
    /// button held.
    public mutating func connectionRestarted() {
        sequence.restart()
        lastSampleTime = nil
        buttons = []
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
