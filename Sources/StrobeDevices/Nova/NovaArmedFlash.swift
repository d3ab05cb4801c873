import StrobeHost
import Synchronization

/// A FLASH command readied for a trigger by `NovaFlash.armFlash(_:)`: its request id reserved,
/// its Write Request encoded into one ACL packet with a controller buffer held for it.
/// `fire()` sends it with no lock and no allocation; then `NovaFlash.armedFlashFired(_:)` does
/// the bookkeeping and `NovaFlash.acknowledgement(of: ticket)` waits for the ack.
public final class NovaArmedFlash: Sendable {
    package let ticket: NovaCommandTicket
    let write: ATTArmedWrite
    private let clock: DeviceClock
    /// When it was handed to the transport, on the flash's clock (as an offset in nanoseconds).
    private let firedAt = Atomic<Int64>(0)

    init(ticket: NovaCommandTicket, write: ATTArmedWrite, clock: DeviceClock) {
        self.ticket = ticket
        self.write = write
        self.clock = clock
    }

    /// Sends the FLASH now, unless it was withdrawn (or the link is part-way through another
    /// PDU). Returns whether its bytes went to the transport. Safe on a transport's reader thread.
    public func fire() -> Bool {
        // Stamped before the exchange that publishes it.
        firedAt.store(clock.nowNanoseconds, ordering: .relaxed)
        return write.fire()
    }

    /// Reads its clock, its fire stamp and its armed write (`ATTArmedWrite.warm()`), changing
    /// nothing, and returns what it read, so that a trigger after a long quiet finds them in
    /// cache. Safe on any thread, during a `fire()` too.
    package func warm() -> UInt {
        UInt(truncatingIfNeeded: clock.nowNanoseconds &+ firedAt.load(ordering: .relaxed)) &+ write.warm()
    }

    /// Withdraws it unsent: its ticket fails with `.withdrawn` and the flash takes other commands
    /// again. Does nothing once it fired.
    public func disarm() {
        write.disarm()
    }

    /// Its bytes went out.
    public var hasFired: Bool { write.hasFired }

    /// Still waiting for its trigger.
    public var isArmed: Bool { write.isArmed }

    var firedInstant: DeviceClock.Instant {
        DeviceClock.Instant(offset: .nanoseconds(firedAt.load(ordering: .relaxed)))
    }
}
