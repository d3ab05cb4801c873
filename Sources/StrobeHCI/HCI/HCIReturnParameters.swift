/// What Command Complete returns after its Status for a command that returns nothing more
/// (and what a command answered by Command Status returns).
package struct HCINoReturnParameters: HCIParameters {
    package init() {}
    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {}
}

/// Return parameters that are the command's connection handle alone.
package struct HCIConnectionHandleReturnParameters: HCIParameters {
    package var connectionHandle: ConnectionHandle

    package init(connectionHandle: ConnectionHandle) {
        self.connectionHandle = connectionHandle
    }

    package init() {
        self.init(connectionHandle: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Connection_Handle", &connectionHandle)
    }
}
