import StrobeHost

extension Peripheral {
    /// Where a simulated device's own tasks (its firmware) run: its host's loop, a thread of the
    /// device's own on the real clock, not the app's pool.
    var firmwareExecutor: (any TaskExecutor)? { central.controller.loop.executor }
}
