/// What the controller driver has seen and dropped, for diagnostics and tests.
public struct HCICounters: Sendable, Hashable {
    public var eventsReceived = 0
    /// Events whose layout did not match the spec (dropped; see `HCIController.lastMalformed`).
    public var malformedEvents = 0
    /// Events passed through as `.unknown` / `.unknownLEMeta`.
    public var unknownEvents = 0
    public var commandsSent = 0
    public var commandTimeouts = 0
    /// Command Complete / Status for an opcode no command was waiting for (NOPs excluded).
    public var unexpectedCommandResponses = 0
    public var hardwareErrors = 0
    public var aclPacketsReceived = 0
    public var malformedACLPackets = 0
    /// ACL packets received while no ACL handler was set.
    public var aclPacketsWithoutHandler = 0
    public var aclPacketsSent = 0
    /// Completed packets reported for more packets than the host had in flight on that handle.
    public var unexpectedCompletedPackets = 0
    /// SCO, ISO or command packets from the controller, which this host does not use.
    public var unexpectedPackets = 0

    public init() {}
}
