import StrobeHCI

/// Which PDU carried an attribute value the server pushed.
public enum ATTValueKind: Hashable, Sendable {
    /// A Handle Value Notification (0x1B), or one value of a Multiple Handle Value Notification (0x23): not confirmed.
    case notification
    /// A Handle Value Indication (0x1D): the bearer sends the Handle Value Confirmation after the handler returns.
    case indication
}

/// Receives notified and indicated values for the handles it is registered for. Called on the
/// receive path with a view borrowed from the receive buffer: valid only during the call, so
/// copy what you keep (into a ring buffer); do not block. Indications are confirmed after the
/// call returns.
public protocol ATTValueHandler: AnyObject, Sendable {
    /// One notified or indicated `value` for `handle`, stamped with the time its bytes were read
    /// from the transport. `value` is valid only during the call.
    func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime)

    /// The values of one transport read have all been handed over: a handler that defers waking
    /// its consumer (a ring) wakes it here, once per read instead of once per value.
    func attributeValuesDidFinishBatch()

    /// The bearer closed (the link ended, or failed): no more values come from it. Called once,
    /// off the receive path, with the reason the bearer's waiters see.
    func attributeBearerDidClose(_ reason: ATTBearerCloseReason)
}

extension ATTValueHandler {
    /// Does nothing: handlers that deliver each value at once need no batch signal.
    public func attributeValuesDidFinishBatch() {}
    /// Does nothing: handlers that do not track the bearer's end may ignore it.
    public func attributeBearerDidClose(_ reason: ATTBearerCloseReason) {}
}

/// A handler built from a closure.
package final class ATTValueClosureHandler: ATTValueHandler {
    package typealias Body = @Sendable (_ value: UnsafeRawBufferPointer, _ handle: AttributeHandle, _ kind: ATTValueKind, _ time: HostTime) -> Void
    private let body: Body

    package init(_ body: @escaping Body) { self.body = body }

    package func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) {
        body(value, handle, kind, time)
    }
}
