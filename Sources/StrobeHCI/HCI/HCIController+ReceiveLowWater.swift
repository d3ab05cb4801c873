/// A sink that tells a stream transport's reader how many bytes it may wait for before its next
/// read returns, so that the reader wakes once for the rest of a PDU rather than once for each
/// of its fragments.
package protocol HCIReceiveLowWater: AnyObject {
    /// At least this many bytes of ACL data are still to come, in packets that nothing else the
    /// host waits for needs to overtake; 0 when the reader should return with whatever comes.
    /// Asked on the reader thread, after each read's packets.
    func aclBytesCertainToFollow() -> Int

    /// Whether the reader may hold off its next read (`ReadCoalescing`): false while something
    /// the host awaits (a command's answer, credits for its data) would wait behind the hold.
    /// Asked on the reader thread, after a read that brought ACL data, when coalescing is on.
    func readMayHold() -> Bool
}

extension HCIController: HCIReceiveLowWater {
    /// The rest of the PDU the only link has begun, while no command and no ACL packet of the host
    /// awaits the controller: an answer, or the credits of a Number Of Completed Packets event,
    /// would otherwise wait behind that PDU's fragments. With several links, one link's data would.
    package func aclBytesCertainToFollow() -> Int {
        guard let owed = aclRoutes.current()?._withUnsafeGuaranteedRef({ $0.bytesToCompletePDUOnOnlyLink }), owed > 0
        else { return 0 }
        return readMayHold() ? owed : 0
    }

    /// Only while no command and no ACL packet of the host awaits the controller: the same
    /// condition as the low-water mark's.
    package func readMayHold() -> Bool {
        state.withLock { $0.commands.isIdle && !$0.acl.isBusy }
    }
}
