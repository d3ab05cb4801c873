import StrobeHCI

/// Turns a pen's Samples notifications into timed `StylusEvent`s, in place: each notification is
/// validated as a sample batch and its samples handed to a caller's closure one by one, with
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
    /// Running totals since the decoder was created; `connectionRestarted()` keeps them.
    public struct Counters: Sendable, Hashable {
        /// Well-formed batches decoded.
        public var batches: UInt64 = 0
        /// Samples delivered.
        public var samples: UInt64 = 0
        /// Batches the sequence numbers say were never received.
        public var lostBatches: UInt64 = 0
        /// Batches whose sequence number repeated or went back.
        public var outOfOrderBatches: UInt64 = 0
        /// Notifications dropped whole as malformed (see `StylusDecodingError`).
        public var malformedBatches: UInt64 = 0
        /// Times the timestamp chain was re-anchored to arrival time (not counting first batches
        /// and gaps).
        public var reanchors: UInt64 = 0
        /// Side-button presses reported as their mapped action (`StylusEvent.sideButtonAction`).
        public var sideButtonActions: UInt64 = 0
        /// All totals at zero.
        public init() {}
    }

    /// The actions that side-button presses are reported as; `.unassigned` reports none.
    public var buttonMap: StylusButtonMap
    /// How far the reconstructed time may fall behind arrival before it is re-anchored.
    public var maximumLag: Duration {
        didSet { maximumLagNanoseconds = Self.nanoseconds(maximumLag) }
    }

    // The decoder's state, stored apart and read through getters, so that `decode` and
    // `consume` can be inlined into the consumer's loop (a stylus reports a thousand samples a
    // second, and the per-sample closure then costs nothing).
    @usableFromInline var maximumLagNanoseconds: UInt64
    @usableFromInline var counts = Counters()
    @usableFromInline var tracker = SequenceNumberTracker()
    @usableFromInline var error: StylusDecodingError?
    @usableFromInline var heldButtons: StylusButtons = []
    @usableFromInline var lastStamp: HostTime?

    /// Batches, samples, losses, re-anchors, malformed batches and side-button actions counted so far.
    public var counters: Counters { counts }
    /// The tracker following the batches' sequence numbers.
    package var sequence: SequenceNumberTracker { tracker }
    /// Why the most recent malformed batch was dropped; `nil` while none has been.
    public var lastError: StylusDecodingError? { error }
    /// The buttons of the last sample delivered.
    public var buttons: StylusButtons { heldButtons }
    /// The timestamp of the last sample delivered.
    public var lastSampleTime: HostTime? { lastStamp }

    /// A decoder that reports side-button presses by `buttonMap` (`.unassigned` by default: none) and
    /// re-anchors its timestamps when they lag arrival by more than `maximumLag` (50 ms by default).
    public init(buttonMap: StylusButtonMap = .unassigned, maximumLag: Duration = .milliseconds(50)) {
        self.buttonMap = buttonMap
        self.maximumLag = maximumLag
        maximumLagNanoseconds = Self.nanoseconds(maximumLag)
    }

    /// Decodes one notification received at `receivedAt` and hands its events to `sink`.
    /// A malformed batch delivers nothing, is counted and throws. Returns the samples delivered.
    @inlinable @discardableResult
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, receivedAt: HostTime, _ sink: (StylusEvent) -> Void
    ) throws(StylusDecodingError) -> Int {
        let batch: StylusBatchView
        do {
            batch = try StylusBatchView(bytes)
        } catch {
            counts.malformedBatches += 1
            self.error = error
            throw error
        }
        consume(batch, receivedAt: receivedAt, sink)
        return batch.count
    }

    /// Delivers the events of an already validated batch.
    @inlinable @inline(__always)
    package mutating func consume(_ batch: StylusBatchView, receivedAt: HostTime, _ sink: (StylusEvent) -> Void) {
        counts.batches += 1
        let continues: Bool
        switch tracker.observe(batch.sequence) {
        case .inOrder:
            continues = true
        case .first:
            continues = false
        case .gap(let lost):
            counts.lostBatches += UInt64(lost)
            continues = false
        case .outOfOrder:
            counts.outOfOrderBatches += 1
            continues = false
        }

        let span = UInt64(batch.totalDeltaMicroseconds) * 1000
        let arrival = receivedAt.nanoseconds
        var last = arrival
        if continues, let previous = lastStamp?.nanoseconds {
            let chained = previous &+ span
            if chained > arrival || arrival - chained > maximumLagNanoseconds {
                counts.reanchors += 1
            } else {
                last = chained
            }
        }
        // Each sample is stamped back from the last one by the time after it; a batch that claims
        // more time than the clock has (just after start-up) is clamped at 0. `after` cannot wrap:
        // `span` is the sum of the deltas taken off it.
        var after = span
        let floor = lastStamp?.nanoseconds ?? 0

        var stamp = HostTime(nanoseconds: floor)
        for index in batch.indices {
            let sample = batch[index]
            after &-= UInt64(sample.deltaMicroseconds) &* 1000
            let time = last >= after ? last &- after : 0
            stamp = HostTime(nanoseconds: max(time, floor))
            sink(.sample(sample, timestamp: stamp))
            if sample.buttons != heldButtons { buttonsChanged(to: sample.buttons, at: stamp, sink) }
        }
        // A view holds at least one sample, so `stamp` is the last one's.
        lastStamp = stamp
        counts.samples &+= UInt64(batch.count)
    }

    /// The held buttons changed: report it, and a side button pressed as its mapped action.
    @usableFromInline
    mutating func buttonsChanged(to newButtons: StylusButtons, at stamp: HostTime, _ sink: (StylusEvent) -> Void) {
        sink(.buttonsChanged(from: heldButtons, to: newButtons, timestamp: stamp))
        // Explicit per button: `allCases` would build an array on this path.
        let pressed = newButtons.subtracting(heldButtons)
        if pressed.contains(.sideButton1) { reportPress(.side1, at: stamp, sink) }
        if pressed.contains(.sideButton2) { reportPress(.side2, at: stamp, sink) }
        heldButtons = newButtons
    }

    private mutating func reportPress(_ side: StylusSideButton, at stamp: HostTime, _ sink: (StylusEvent) -> Void) {
        let action = buttonMap[side]
        guard action != .none else { return }
        counts.sideButtonActions += 1
        sink(.sideButtonAction(action, button: side, timestamp: stamp))
    }

    /// A new connection: the next batch starts a new sequence count and timestamp chain, with no
    /// button held.
    public mutating func connectionRestarted() {
        tracker.restart()
        lastStamp = nil
        heldButtons = []
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
