/// What the controller driver has seen and dropped, for diagnostics and tests.
package struct HCICounters: Sendable, Hashable {
    package var eventsReceived = 0
    /// Events whose layout did not match the spec (dropped; see `HCIController.lastMalformed`).
    package var malformedEvents = 0
    /// Events passed through as `.unknown` / `.unknownLEMeta`.
    package var unknownEvents = 0
    package var commandsSent = 0
    package var commandTimeouts = 0
    /// Command Complete / Status for an opcode no command was waiting for (NOPs excluded).
    package var unexpectedCommandResponses = 0
    package var hardwareErrors = 0
    package var aclPacketsReceived = 0
    package var malformedACLPackets = 0
    /// ACL packets received while no ACL handler was set.
    package var aclPacketsWithoutHandler = 0
    package var aclPacketsSent = 0
    /// Completed packets reported for more packets than the host had in flight on that handle.
    package var unexpectedCompletedPackets = 0
    /// SCO, ISO or command packets from the controller, which this host does not use.
    package var unexpectedPackets = 0

    package init() {}
}
