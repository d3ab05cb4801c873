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
/// `@unchecked Sendable`: `slots` is replaced only by the holder of the shot flag, after the
/// warmers reading it are gone (`replaceSlots(with:)`); `warmers` is a block of atomics this
/// object owns. Neither is guarded by the compiler.
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

    /// What `warm()` writes, in a block of its own so that a trigger reads no line a warmer wrote.
    struct Warmers: ~Copyable {
        /// `warm()` calls that may be reading `slots` right now. With the shot flag it makes a
        /// Dekker pair: a warmer counts itself and then reads the flag; a replacer (holding the
        /// flag) stores it again and then reads the count, both sequentially consistent. Either
        /// the warmer sees the flag and reads no slot, or the replacer waits for it.
        let inSlots = Atomic<Int>(0)
        /// `warm()` calls that read at least one armed command.
        let reads = Atomic<Int>(0)
        /// What the last `warm()` read, kept so that its loads are not optimised away.
        let read = Atomic<UInt>(0)
    }

    /// Held from a trigger to the end of its shot (`shot`), and while arming (`arming`): a
    /// trigger that finds a shot holding it is `busy`; one that finds arming holding it waits
    /// for the arming (the sequencer's), never on the trigger's thread.
    private let holder = Atomic<UInt8>(Holder.none)

    private enum Holder {
        static let none: UInt8 = 0
        static let shot: UInt8 = 1
        static let arming: UInt8 = 2
    }
    private(set) var slots: [Slot] = []
    /// Two lines (128 bytes, as adjacent-line prefetchers pair them) of their own.
    private let warmers: UnsafeMutablePointer<Warmers>

    init() {
        assert(MemoryLayout<Warmers>.size <= 128)
        warmers = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 128).bindMemory(to: Warmers.self, capacity: 1)
        warmers.initialize(to: Warmers())
    }

    deinit {
        warmers.deinitialize(count: 1)
        UnsafeMutableRawPointer(warmers).deallocate()
    }

    /// Takes the shot flag for a shot; false when a shot (or arming) holds it.
    func claim() -> Bool {
        holder.compareExchange(expected: Holder.none, desired: Holder.shot, ordering: .acquiring).exchanged
    }

    /// Takes the shot flag for arming; false when a shot (or arming) holds it.
    func claimForArming() -> Bool {
        holder.compareExchange(expected: Holder.none, desired: Holder.arming, ordering: .acquiring).exchanged
    }

    /// Whether arming holds the flag now.
    var isArming: Bool { holder.load(ordering: .acquiring) == Holder.arming }

    func release() {
        holder.store(Holder.none, ordering: .releasing)
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

    /// Reads what `fire` reads of each armed command, writing only `warmers`: between presses,
    /// so that a trigger after a long quiet finds those lines in cache. A trigger never waits
    /// for it (it does not look at `warmers`); a warmer that sees the flag held reads no slot.
    func warm() {
        warmers.pointee.inSlots.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { warmers.pointee.inSlots.wrappingSubtract(1, ordering: .releasing) }
        guard holder.load(ordering: .sequentiallyConsistent) == Holder.none, !slots.isEmpty else { return }
        var read: UInt = 0
        for index in slots.indices {
            Unmanaged.passUnretained(slots[index])._withUnsafeGuaranteedRef { slot in
                read &+= UInt(truncatingIfNeeded: slot.issuedAt.load(ordering: .relaxed)) &+ slot.armed.warm()
            }
        }
        warmers.pointee.read.store(read, ordering: .relaxed)
        warmers.pointee.reads.wrappingAdd(1, ordering: .relaxed)
    }

    /// `warm()` calls that read at least one armed command.
    var warmReads: Int { warmers.pointee.reads.load(ordering: .relaxed) }

    /// Replaces the armed commands, with the shot flag held, once no `warm()` may be reading
    /// them. A warmer reads for well under a microsecond, unless it was preempted. Waits
    /// without a suspension point, so that a run in virtual time keeps its order of jobs.
    func replaceSlots(with new: [Slot]) {
        // A sequentially consistent write of the flag (already held): the replacer's half of the
        // Dekker pair, so that the trigger's claim can stay an acquire.
        let held = holder.load(ordering: .relaxed)
        assert(held != Holder.none, "the armed commands are replaced with the shot flag held")
        holder.store(held, ordering: .sequentiallyConsistent)
        while warmers.pointee.inSlots.load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
        slots = new
    }

    func slot(for flash: NovaFlash) -> Slot? {
        let id = ObjectIdentifier(flash)
        return slots.first { $0.flash == id }
    }
}
