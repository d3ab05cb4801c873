import StrobeHCI

/// A ring subscribes directly: the bearer hands it each notified or indicated value on the
/// transport's reader thread, which is the ring's one producer. A full ring drops and counts.
/// A parked consumer is woken once per transport read, when the bearer ends the batch.
extension NotificationRing: ATTValueHandler {
    public func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) {
        _ = pushDeferringWake(handle: handle, value: value, at: time)
    }

    public func attributeValuesDidFinishBatch() {
        finishBatch()
    }
}
