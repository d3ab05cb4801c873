import StrobeHCI

/// Waits, a virtual millisecond at a time for at most a second, for state another task reaches;
/// fails instead of hanging.
func eventually(_ clock: VirtualClock, _ condition: () -> Bool) async -> Bool {
    for _ in 0..<1000 {
        if condition() { return true }
        try? await clock.sleep(for: .milliseconds(1))
    }
    return condition()
}
