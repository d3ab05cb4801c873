import Synchronization

/// A Write Request made ready ahead of a trigger: its PDU is encoded into one ACL packet, a
/// controller buffer is held for it and the bearer's transaction slot is kept for it, so that
/// `fire()` puts it on the wire with one atomic exchange and one transport write: no lock, no
/// allocation, no task.
///
/// Armed, it keeps the bearer's requests waiting, so anything else that needs the bearer (or
/// its owner) disarms it first: each armed write ends exactly once, fired or disarmed, decided by
/// one compare-and-exchange. After a fire, `settle()` does the bookkeeping (the transaction
/// timer); the response ends the transaction as for any request, and is not handed to anyone.
public final class ATTArmedWrite: Sendable {
    enum Phase: UInt8 {
        case armed
        /// On the wire: the bearer waits for its response.
        case fired
        /// The transport refused it: nothing went out, the buffer is back.
        case failed
        case disarmed
    }

    let id: UInt64
    private let phase = Atomic<UInt8>(Phase.armed.rawValue)
    private let packet: any ATTArmedPacket
    private weak let bearer: ATTBearer?
    private let onDisarmed: @Sendable () -> Void

    init(id: UInt64, packet: any ATTArmedPacket, bearer: ATTBearer, onDisarmed: @escaping @Sendable () -> Void) {
        self.id = id
        self.packet = packet
        self.bearer = bearer
        self.onDisarmed = onDisarmed
    }

    deinit {
        packet.release()
    }

    var currentPhase: Phase { Phase(rawValue: phase.load(ordering: .acquiring)) ?? .disarmed }

    /// True once the write went out (whatever came of it since).
    public var hasFired: Bool { currentPhase == .fired }

    /// Still waiting for its trigger.
    public var isArmed: Bool { currentPhase == .armed }

    /// Sends the write now, if it is still armed and the link is not part-way through another
    /// PDU. Returns whether its bytes went to the transport. Lock-free and allocation-free: safe
    /// on a transport's reader thread.
    public func fire() -> Bool {
        guard packet.tryClaimLink() else { return false }
        defer { packet.releaseLink() }
        guard phase.compareExchange(expected: Phase.armed.rawValue, desired: Phase.fired.rawValue, ordering: .acquiringAndReleasing).exchanged
        else { return false }
        do {
            try packet.send()
            return true
        } catch {
            phase.store(Phase.failed.rawValue, ordering: .releasing)
            return false
        }
    }

    /// Withdraws the write before it fired: the buffer goes back, the bearer's slot goes to the
    /// next request, and the owner hears of it (`onDisarmed`, called here, on this thread, with
    /// no lock of the bearer held). Returns false when it had already fired or ended.
    @discardableResult
    public func disarm() -> Bool {
        guard phase.compareExchange(expected: Phase.armed.rawValue, desired: Phase.disarmed.rawValue, ordering: .acquiringAndReleasing).exchanged
        else { return false }
        packet.release()
        bearer?.armedWriteSettled(self)
        onDisarmed()
        return true
    }

    /// The bookkeeping after `fire()`, off the hot path: the transaction timer starts (fired) or
    /// the bearer's slot is given back (failed). Harmless to call more than once, or before the
    /// write fired (it does nothing then).
    public func settle() {
        bearer?.armedWriteSettled(self)
    }
}
