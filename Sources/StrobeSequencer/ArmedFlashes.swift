import StrobeDevices
import Synchronization

/// The FLASH commands armed for the next trigger, one per flash. Only the holder of the
/// sequencer's shot flag reads or replaces `slots`, so they need no lock of their own.
///
/// `@unchecked Sendable`: `slots` is guarded by that flag (an atomic claimed with acquire and
/// released with release ordering), not by the compiler.
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

    var slots: [Slot] = []

    func slot(for flash: NovaFlash) -> Slot? {
        let id = ObjectIdentifier(flash)
        return slots.first { $0.flash == id }
    }
}
