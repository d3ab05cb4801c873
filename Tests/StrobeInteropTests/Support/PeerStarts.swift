/// Python peers (Bumble's controller and devices, lifx-emulator, the fault proxy) take a second
/// or more of CPU each to start, and the suite starts dozens at once: on a busy two-core machine
/// they starved one another past every deadline. At most two start at a time; the others wait
/// their turn (inside their test's time limit), then run side by side as before.
enum PeerStarts {
    static let slots = Slots(2)
}
