import Testing
import StrobeHost

/// The deadlines of a link's Security Manager driven by scripted times: no clock, no tasks.
@Suite struct LinkSecurityDeadlinesTests {
    typealias Machine = LinkSecurityDeadlines

    @Test func nothingIsDueWhenNothingIsWaitedFor() {
        var machine = Machine()
        #expect(machine.next == nil)
        #expect(machine.expire(now: .seconds(1_000)).isEmpty)
    }

    /// Each SMP command restarts the timer: it is due 30 s after the last one, not the first.
    @Test func theSMPTimerRestartsAndExpiresOnce() {
        var machine = Machine()
        machine.startSMPTimer(now: .zero, timeout: .seconds(30))
        machine.startSMPTimer(now: .seconds(20), timeout: .seconds(30))
        #expect(machine.next == .seconds(50))
        #expect(machine.expire(now: .seconds(49)).isEmpty)
        #expect(machine.expire(now: .seconds(50)) == [.smpTimer])
        #expect(machine.expire(now: .seconds(60)).isEmpty)
        #expect(machine.next == nil)
    }

    @Test func aStoppedSMPTimerNeverExpires() {
        var machine = Machine()
        machine.startSMPTimer(now: .zero, timeout: .seconds(30))
        machine.stopSMPTimer()
        #expect(machine.next == nil)
        #expect(machine.expire(now: .seconds(31)).isEmpty)
    }

    /// Waits end each at their own deadline; one ended by its caller is never reported.
    @Test func waitsExpireEachAtTheirOwnDeadline() {
        var machine = Machine()
        let pairing = machine.startWait(until: .seconds(31))
        let encryption = machine.startWait(until: .seconds(5))
        let answered = machine.startWait(until: .seconds(2))
        #expect(Set([pairing, encryption, answered]).count == 3)
        machine.endWait(answered)
        #expect(machine.next == .seconds(5))
        #expect(machine.expire(now: .seconds(5)) == [.wait(id: encryption)])
        #expect(machine.next == .seconds(31))
        #expect(machine.expire(now: .seconds(40)) == [.wait(id: pairing)])
        #expect(machine.next == nil)
    }

    /// A peripheral asks again 1, 3, 7 and 15 s after its Security Request, then stops; a second
    /// pair() meanwhile does not restart the series.
    @Test func remindersFollowTheirGapsThenEnd() {
        var machine = Machine()
        machine.startReminders(now: .seconds(10))
        machine.startReminders(now: .seconds(12))
        var times: [Duration] = []
        while let next = machine.next {
            #expect(machine.expire(now: next) == [.securityRequestReminder])
            times.append(next)
        }
        #expect(times == [.seconds(11), .seconds(13), .seconds(17), .seconds(25)])
        #expect(!machine.remindsCentral)
    }

    /// A late timer (the owner woke after several deadlines) reports all of them at once,
    /// earliest first, the reminder only once, moved on by one gap.
    @Test func aLateWakeupReportsEverythingDueAtOnce() {
        var machine = Machine()
        machine.startSMPTimer(now: .zero, timeout: .seconds(30))
        let wait = machine.startWait(until: .seconds(31))
        machine.startReminders(now: .zero)
        #expect(machine.expire(now: .seconds(40)) == [.securityRequestReminder, .smpTimer, .wait(id: wait)])
        #expect(machine.next == .seconds(3))
    }

    @Test func stoppingRemindersAndStoppingAllLeaveNothingDue() {
        var machine = Machine()
        machine.startReminders(now: .zero)
        machine.stopReminders()
        #expect(machine.next == nil)
        machine.startSMPTimer(now: .zero, timeout: .seconds(30))
        _ = machine.startWait(until: .seconds(1))
        machine.startReminders(now: .zero)
        machine.stopAll()
        #expect(machine.next == nil)
        #expect(machine.expire(now: .seconds(100)).isEmpty)
    }
}
