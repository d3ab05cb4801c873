import Testing
import StrobeHCI

/// The controller's one scan shared by its clients, driven by scripted inputs: no controller,
/// no clock, no tasks.
@Suite struct LEScanArbiterTests {
    typealias Settings = LEScanArbiter.Settings

    static func settings(active: Bool = true, interval: UInt16 = 0x60, window: UInt16 = 0x60, extended: Bool = false,
                         own: LEOwnAddressType = .public, filter: Bool = false, phys: LEPHYs = .le1M) -> Settings {
        Settings(extended: extended, active: active, interval: interval, window: window, ownAddressType: own,
                 filterDuplicates: filter, phys: phys)
    }

    @Test func oneClientStartsAndStopsTheScan() throws {
        var arbiter = LEScanArbiter()
        #expect(arbiter.nextStep() == nil)
        try arbiter.join(1, Self.settings())
        #expect(!arbiter.isServed(1))
        #expect(arbiter.nextStep() == .start(Self.settings(), stopping: nil))
        #expect(arbiter.nextStep() == nil)  // one step at a time
        arbiter.stepSucceeded()
        #expect(arbiter.isServed(1))
        #expect(arbiter.running == Self.settings())
        #expect(arbiter.nextStep() == nil)
        arbiter.leave(1)
        #expect(arbiter.nextStep() == .stop(Self.settings()))
        arbiter.stepSucceeded()
        #expect(arbiter.running == nil)
        #expect(arbiter.nextStep() == nil)
    }

    /// A second client the running scan already serves costs no command; one leaving changes
    /// nothing while another scans; the scan stops when the last has left.
    @Test func aSecondClientJoinsTheRunningScanAndTheLastToLeaveStopsIt() throws {
        var arbiter = LEScanArbiter()
        try arbiter.join(1, Self.settings())
        _ = arbiter.nextStep()
        arbiter.stepSucceeded()
        try arbiter.join(2, Self.settings(active: false, interval: 0xA0, window: 0x30))
        #expect(arbiter.nextStep() == nil)
        #expect(arbiter.isServed(2))
        arbiter.leave(1)
        #expect(arbiter.nextStep() == nil)
        #expect(arbiter.running == Self.settings())
        arbiter.leave(2)
        #expect(arbiter.nextStep() == .stop(Self.settings()))
        arbiter.stepSucceeded()
        #expect(arbiter.running == nil && arbiter.nextStep() == nil)
    }

    /// A client that wants more than the running scan gives restarts it with the merge.
    @Test func aClientWantingMoreRestartsTheScan() throws {
        var arbiter = LEScanArbiter()
        try arbiter.join(1, Self.settings(active: false))
        _ = arbiter.nextStep()
        arbiter.stepSucceeded()
        try arbiter.join(2, Self.settings(active: true, interval: 0x30, window: 0x10))
        #expect(arbiter.nextStep() == .start(Self.settings(active: true, interval: 0x30, window: 0x30), stopping: Self.settings(active: false)))
        #expect(!arbiter.isServed(2))
        arbiter.stepSucceeded()
        #expect(arbiter.isServed(1) && arbiter.isServed(2))
    }

    /// A client asking to listen a larger share of the time (a longer window for its interval)
    /// than the running scan does is not served by it: the scan restarts.
    @Test func aLongerWindowIsMoreThanTheRunningScanGives() throws {
        var arbiter = LEScanArbiter()
        try arbiter.join(1, Self.settings(interval: 0x60, window: 0x10))
        _ = arbiter.nextStep()
        arbiter.stepSucceeded()
        try arbiter.join(2, Self.settings(interval: 0xC0, window: 0x30))  // 25%, not more than 1/6: no
        try arbiter.join(3, Self.settings(interval: 0x60, window: 0x60))
        #expect(arbiter.nextStep() == .start(Self.settings(interval: 0x60, window: 0x60), stopping: Self.settings(interval: 0x60, window: 0x10)))
        arbiter.stepSucceeded()
        try arbiter.join(4, Self.settings(interval: 0xC0, window: 0xC0))
        #expect(arbiter.nextStep() == nil && arbiter.isServed(4))
    }

    /// Active if any is, the shortest interval, the longest window within it, the union of PHYs,
    /// the controller's duplicate filter only if all accept it.
    @Test func theWantedScanIsTheMerge() throws {
        var arbiter = LEScanArbiter()
        try arbiter.join(1, Self.settings(active: false, interval: 0x100, window: 0x80, extended: true, filter: true, phys: .le1M))
        try arbiter.join(2, Self.settings(active: true, interval: 0x40, window: 0x20, extended: true, filter: false, phys: .leCoded))
        #expect(arbiter.wanted == Self.settings(active: true, interval: 0x40, window: 0x40, extended: true, filter: false, phys: [.le1M, .leCoded]))
    }

    @Test func aClientThatTheRunningScanCannotServeIsRefused() throws {
        var arbiter = LEScanArbiter()
        try arbiter.join(1, Self.settings(extended: true))
        #expect(throws: HCIError.scanConflict(extended: true, ownAddressType: .public)) {
            try arbiter.join(2, Self.settings(extended: false))
        }
        #expect(throws: HCIError.scanConflict(extended: true, ownAddressType: .public)) {
            try arbiter.join(2, Self.settings(extended: true, own: .random))
        }
        // A client may change its own request freely.
        try arbiter.join(1, Self.settings(extended: false, own: .random))
        #expect(arbiter.clientCount == 1)
    }

    /// A failed start drops the clients it was for; those already served are scanned for again,
    /// the scan that may linger disabled first.
    @Test func aFailedStartDropsOnlyTheClientsItWasFor() throws {
        var arbiter = LEScanArbiter()
        try arbiter.join(1, Self.settings(active: false))
        _ = arbiter.nextStep()
        arbiter.stepSucceeded()
        try arbiter.join(2, Self.settings(active: true))
        #expect(arbiter.nextStep() == .start(Self.settings(active: true), stopping: Self.settings(active: false)))
        #expect(arbiter.stepFailed() == .init(joining: [2]))
        #expect(arbiter.running == nil)
        #expect(arbiter.nextStep() == .start(Self.settings(active: false), stopping: Self.settings(active: false)))
        arbiter.stepSucceeded()
        #expect(arbiter.isServed(1) && !arbiter.isServed(2))
    }

    /// When the restart for clients already served fails too, they are dropped (as served: they
    /// have no join waiting to hear it), and nothing loops.
    @Test func aFailedRestartForServedClientsDropsThemAll() throws {
        var arbiter = LEScanArbiter()
        try arbiter.join(1, Self.settings())
        try arbiter.join(2, Self.settings())
        _ = arbiter.nextStep()
        arbiter.stepSucceeded()
        try arbiter.join(3, Self.settings(interval: 0x30, window: 0x30))
        _ = arbiter.nextStep()
        #expect(arbiter.stepFailed() == .init(joining: [3]))
        #expect(arbiter.nextStep() == .start(Self.settings(), stopping: Self.settings()))
        #expect(arbiter.stepFailed() == .init(served: [1, 2]))
        #expect(arbiter.clientCount == 0 && arbiter.nextStep() == nil)
    }

    /// A failed stop leaves a scan that may linger: nobody scanning, it is not chased; the next
    /// client's start disables it first.
    @Test func aScanThatMayLingerIsDisabledByTheNextStart() throws {
        var arbiter = LEScanArbiter()
        try arbiter.join(1, Self.settings())
        _ = arbiter.nextStep()
        arbiter.stepSucceeded()
        arbiter.leave(1)
        #expect(arbiter.nextStep() == .stop(Self.settings()))
        #expect(arbiter.stepFailed() == .init())
        #expect(arbiter.running == nil && arbiter.nextStep() == nil)
        try arbiter.join(2, Self.settings(active: false))
        #expect(arbiter.nextStep() == .start(Self.settings(active: false), stopping: Self.settings()))
        arbiter.stepSucceeded()
        arbiter.leave(2)
        #expect(arbiter.nextStep() == .stop(Self.settings(active: false)))
    }

    /// A client that changes its request while a step runs waits for the next.
    @Test func aChangeDuringAStepWaitsForTheNext() throws {
        var arbiter = LEScanArbiter()
        try arbiter.join(1, Self.settings())
        _ = arbiter.nextStep()
        try arbiter.join(1, Self.settings(interval: 0x30, window: 0x30))
        arbiter.stepSucceeded()
        #expect(!arbiter.isServed(1))
        #expect(arbiter.nextStep() == .start(Self.settings(interval: 0x30, window: 0x30), stopping: Self.settings()))
        arbiter.stepSucceeded()
        #expect(arbiter.isServed(1))
    }

    @Test func resetForgetsEveryone() throws {
        var arbiter = LEScanArbiter()
        try arbiter.join(1, Self.settings())
        _ = arbiter.nextStep()
        arbiter.reset()
        arbiter.stepSucceeded()
        #expect(arbiter.running == nil && arbiter.clientCount == 0 && arbiter.nextStep() == nil)
    }
}
