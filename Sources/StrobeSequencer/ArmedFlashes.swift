import StrobeDevices
import StrobeHCI
import Synchronization

/// The shot flag and the FLASH commands armed for the next trigger, one per flash: what a
/// trigger's handler touches on the transport's reader thread, kept in one object of its own so
/// that the handler reaches it without the sequencer (no weak reference to load on that path).
///
/// `@unchecked Sendable`: `slots` is read and replaced only by the holder of the shot flag (an
/// atomic claimed with acquire and released with release ordering), not guarded by the compiler.
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
    var slots: [Slot] = []

    /// Takes the shot flag; false when a shot (or arming) holds it.
    func claim() -> Bool {
        inShot.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
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

    func slot(for flash: NovaFlash) -> Slot? {
        let id = ObjectIdentifier(flash)
        return slots.first { $0.flash == id }
    }
}
