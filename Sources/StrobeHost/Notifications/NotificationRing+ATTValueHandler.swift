import StrobeHCI

/// A ring subscribes directly: the bearer hands it each notified or indicated value on the
/// transport's reader thread, which is the ring's one producer. A full ring drops and counts.
/// A parked consumer is woken once per transport read, when the bearer ends the batch. When the
/// bearer closes, the ring closes: its consumer gets what is buffered, then the end (the
/// connection's `closeReason` says why). A ring is for one subscription on one link.
extension NotificationRing: ATTValueHandler {
    /// Pushes the value, notification or indication alike, leaving the consumer's wakeup to the end
    /// of the batch; a full ring or an oversized value drops it and counts it.
    public func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) {
        _ = pushDeferringWake(handle: handle, value: value, at: time)
    }

    /// Wakes a parked consumer once for the whole transport read, if anything was pushed.
    public func attributeValuesDidFinishBatch() {
        finishBatch()
    }

    /// Closes the ring: the consumer gets what is buffered, then the end.
    public func attributeBearerDidClose(_ reason: ATTBearerCloseReason) {
        close()
    }
}
