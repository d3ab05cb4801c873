import StrobeHCI

/// Which PDU carried an attribute value the server pushed.
public enum ATTValueKind: Hashable, Sendable {
    case notification
    case indication
}

/// Receives notified and indicated values for the handles it is registered for. Called on the
/// receive path with a view borrowed from the receive buffer: valid only during the call, so
/// copy what you keep (into a ring buffer); do not block. Indications are confirmed after the
/// call returns.
public protocol ATTValueHandler: AnyObject, Sendable {
    func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime)

    /// The values of one transport read have all been handed over: a handler that defers waking
    /// its consumer (a ring) wakes it here, once per read instead of once per value.
    func attributeValuesDidFinishBatch()

    /// The bearer closed (the link ended, or failed): no more values come from it. Called once,
    /// off the receive path, with the reason the bearer's waiters see.
    func attributeBearerDidClose(_ reason: ATTBearerCloseReason)
}

extension ATTValueHandler {
    public func attributeValuesDidFinishBatch() {}
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
