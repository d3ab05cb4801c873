import StrobeHCI
import Synchronization

/// A Write Request made ready ahead of a trigger: a deferred transaction of its bearer. Its PDU
/// is prepared by the channel (encoded into one ACL packet, a controller buffer held) and it
/// holds the bearer's transaction slot, so that `fire()` puts it on the wire with one
/// compare-and-exchange and one transport write: no lock, no allocation, no task.
///
/// Each armed write ends exactly once, fired or disarmed, decided by one compare-and-exchange.
/// A request made to the bearer meanwhile disarms it; after a fire, `settle()` tells the bearer,
/// whose transaction deadline then starts (the bearer also learns it from the response). The
/// response ends the transaction as for any request and is handed to no one.
public final class ATTArmedWrite: Sendable {
    enum Phase: UInt8 {
        /// Queued for the bearer's slot.
        case waiting
        /// Holds the slot; may fire.
        case armed
        /// On the wire: the bearer waits for its response.
        case fired
        /// The write did not go out; the buffer is back.
        case failed
        case disarmed
    }

    private let phase = Atomic<UInt8>(Phase.waiting.rawValue)
    private let prepared: any ATTPreparedPDU
    private let bearer: ATTBearer
    private let onDisarmed: @Sendable () -> Void
    /// Resolved when the slot is this write's (or it was withdrawn before).
    let turn = Waiter<Void>()

    init(prepared: any ATTPreparedPDU, bearer: ATTBearer, onDisarmed: @escaping @Sendable () -> Void) {
        self.prepared = prepared
        self.bearer = bearer
        self.onDisarmed = onDisarmed
    }

    deinit {
        prepared.discard()
    }

    var currentPhase: Phase { Phase(rawValue: phase.load(ordering: .acquiring)) ?? .disarmed }

    /// True once the write went out (whatever came of it since).
    public var hasFired: Bool { currentPhase == .fired }

    /// Holding the slot, waiting for its trigger.
    public var isArmed: Bool { currentPhase == .armed }

    /// Sends the write now, if it is still armed and the link is not part-way through another
    /// PDU (then it stays armed). Returns whether its bytes went to the transport. Lock-free and
    /// allocation-free: safe on a transport's reader thread.
    public func fire() -> Bool {
        let result = prepared.send {
            phase.compareExchange(expected: Phase.armed.rawValue, desired: Phase.fired.rawValue,
                                  ordering: .acquiringAndReleasing).exchanged
        }
        switch result {
        case .sent:
            return true
        case .failed:
            // The transport refused the write: nothing went out.
            phase.store(Phase.failed.rawValue, ordering: .releasing)
            return false
        case .linkBusy, .declined:
            return false
        }
    }

    /// Reads its phase and its prepared packet (`ATTPreparedPDU.warm()`), changing nothing.
    /// Safe on any thread, during a `fire()` too.
    package func warm() -> UInt {
        UInt(phase.load(ordering: .relaxed)) &+ prepared.warm()
    }

    /// Withdraws the write before it fired: the buffer goes back, the bearer's slot goes to the
    /// next request, and the owner hears of it (`onDisarmed`, called here, once). Returns false
    /// when it had already fired or ended.
    @discardableResult
    public func disarm() -> Bool {
        var current = phase.load(ordering: .acquiring)
        while current == Phase.waiting.rawValue || current == Phase.armed.rawValue {
            let (exchanged, original) = phase.compareExchange(
                expected: current, desired: Phase.disarmed.rawValue, ordering: .acquiringAndReleasing)
            if exchanged {
                prepared.discard()
                turn.fail(ATTBearerError.withdrawn)
                bearer.armedWriteEnded(self, fired: false)
                onDisarmed()
                return true
            }
            current = original
        }
        return false
    }

    /// The bookkeeping after `fire()`, off the hot path: a fired write's transaction deadline
    /// starts; one that failed gives the slot back. Harmless more than once, or before a fire.
    public func settle() {
        switch currentPhase {
        case .fired: bearer.armedWriteEnded(self, fired: true)
        case .failed: bearer.armedWriteEnded(self, fired: false)
        case .waiting, .armed, .disarmed: break
        }
    }

    /// The bearer gave this write the slot: it may fire from now on.
    func reachedTurn() {
        if phase.compareExchange(expected: Phase.waiting.rawValue, desired: Phase.armed.rawValue,
                                 ordering: .acquiringAndReleasing).exchanged {
            turn.succeed(())
        }
    }
}
