#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StrobeDevices
import StrobeHCI
import Synchronization

/// The shot flag and the FLASH commands armed for the next trigger, one per flash: what a
/// trigger's handler touches on the transport's reader thread, kept in one object of its own so
/// that the handler reaches it without the sequencer (no weak reference to load on that path).
///
/// `@unchecked Sendable`: `slots` is replaced only by the holder of the shot flag (an atomic
/// claimed and released with sequentially consistent ordering), after the warmers reading it
/// are gone; it is not guarded by the compiler.
final class ArmedFlashes: @unchecked Sendable {
    final class Slot: Sendable {
        let flash: ObjectIdentifier
        let armed: NovaArmedFlash
        /// Host time just before the fire, in nanoseconds; 0 until then.
        let issuedAt = Atomic<UInt64>(0)

        init(flash: NovaFlash, armed: NovaArmedFlash) {
            self.flash = ObjectIdentifier(flash)
            self.armed = armed
        }
    }

    /// Held from a trigger to the end of its shot, and while arming: a trigger that finds it
    /// held is `busy`. Never waited for.
    private let inShot = Atomic<Bool>(false)
    private(set) var slots: [Slot] = []
    /// What warmers write, in an object of its own: a trigger reads no line a warmer wrote.
    let warmers = Warmers()

    final class Warmers: Sendable {
        /// `touch()` calls reading `slots` right now. With the shot flag it makes a Dekker
        /// pair: a warmer counts itself and then reads the flag; a replacer takes the flag and
        /// then waits for no warmer. Either the warmer sees the flag and leaves, or the
        /// replacer waits for it.
        let active = Atomic<Int>(0)
        /// `touch()` calls that read the slots.
        let reads = Atomic<Int>(0)
    }

    /// Takes the shot flag; false when a shot (or arming) holds it.
    func claim() -> Bool {
        inShot.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
    }

    func release() {
        inShot.store(false, ordering: .releasing)
    }

    /// Sends every armed FLASH, each stamped `issuedAt`: an atomic exchange and a transport
    /// write each, nothing allocated. Only with the shot flag held.
    func fire(issuedAt: HostTime) {
        // Borrowed, not retained: `slots` holds them for the shot, and a reference count here
        // would be a locked instruction on a line the arming core wrote last.
        for index in slots.indices {
            Unmanaged.passUnretained(slots[index])._withUnsafeGuaranteedRef { slot in
                slot.issuedAt.store(issuedAt.nanoseconds, ordering: .relaxed)
                _ = slot.armed.fire()
            }
        }
    }

    /// Reads what `fire` reads, changing nothing but `warmers`: between presses, so that
    /// a trigger after a long quiet finds its path in cache. Never delays a trigger (which does
    /// not look at warmers); reads nothing while the flag is held. Returns what it read.
    func touch() -> UInt {
        warmers.active.add(1, ordering: .sequentiallyConsistent)
        defer { warmers.active.subtract(1, ordering: .releasing) }
        guard !inShot.load(ordering: .sequentiallyConsistent) else { return 0 }
        var read: UInt = 0
        for index in slots.indices {
            Unmanaged.passUnretained(slots[index])._withUnsafeGuaranteedRef { slot in
                read &+= UInt(truncatingIfNeeded: slot.issuedAt.load(ordering: .relaxed)) &+ slot.armed.touch()
            }
        }
        warmers.reads.add(1, ordering: .relaxed)
        return read
    }

    /// Replaces the armed commands, with the shot flag held: once no `touch()` is reading them.
    /// A warmer reads for well under a microsecond, unless it was preempted. Waits without a
    /// suspension point, so that a run in virtual time keeps its order of jobs.
    func replaceSlots(with new: [Slot]) {
        while warmers.active.load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
        slots = new
    }

    func slot(for flash: NovaFlash) -> Slot? {
        let id = ObjectIdentifier(flash)
        return slots.first { $0.flash == id }
    }
}
