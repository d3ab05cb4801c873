import StrobeHCI

/// One notification as it sits in its ring slot. `value` borrows the slot's bytes: it is valid
/// only during the call that receives the view, and must not be kept or sent elsewhere.
public struct NotificationView {
    /// The attribute handle of the characteristic value.
    public let handle: AttributeHandle
    /// Assigned by the producer to every notification offered to the ring, including the ones it
    /// dropped: a gap between two delivered sequence numbers is exactly the number dropped between them.
    public let sequence: UInt64
    /// When the notification's bytes were read from the transport.
    public let timestamp: HostTime
    /// The attribute value, borrowed from the slot.
    public let value: UnsafeRawBufferPointer

    /// Creates a view over `value`, which must stay valid for as long as the view is used.
    @inlinable
    public init(handle: AttributeHandle, sequence: UInt64, timestamp: HostTime, value: UnsafeRawBufferPointer) {
        self.handle = handle
        self.sequence = sequence
        self.timestamp = timestamp
        self.value = value
    }
}

/// A notification copied out of the ring: what the `AsyncSequence` delivers.
public struct GATTNotification: Sendable, Hashable {
    /// The attribute handle of the characteristic value.
    public var handle: AttributeHandle
    /// The ring's sequence number: a gap between two delivered numbers is exactly the number of
    /// notifications dropped between them.
    public var sequence: UInt64
    /// When the notification's bytes were read from the transport (monotonic, in nanoseconds).
    public var timestamp: HostTime
    /// The attribute value, copied out of the slot.
    public var value: [UInt8]

    /// Creates a notification from its parts, e.g. for tests or replays.
    public init(handle: AttributeHandle, sequence: UInt64, timestamp: HostTime, value: [UInt8]) {
        self.handle = handle
        self.sequence = sequence
        self.timestamp = timestamp
        self.value = value
    }

    /// Copies the borrowed view.
    public init(_ view: NotificationView) {
        self.init(handle: view.handle, sequence: view.sequence, timestamp: view.timestamp, value: Array(view.value))
    }
}
