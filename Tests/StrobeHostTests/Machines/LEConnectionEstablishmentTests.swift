import StrobeHCI
import Testing
import StrobeHost

/// The central's connection attempt driven by scripted inputs: no controller, no clock, no tasks.
@Suite struct LEConnectionEstablishmentTests {
    typealias Machine = LEConnectionEstablishment<Int>

    private static func complete(_ status: HCIStatus) -> LEConnectionCompleteEvent {
        LEConnectionCompleteEvent(
            subevent: 0x01, status: status, connectionHandle: 0x0040, role: .central, peerAddressType: .public,
            peerAddress: BluetoothAddress(wire: (1, 2, 3, 4, 5, 6)), connectionInterval: 6, peripheralLatency: 0,
            supervisionTimeout: 400, centralClockAccuracy: 0)
    }

    private static let disallowed = HCIError.commandFailed(.leCreateConnectionCancel, .commandDisallowed)

    @Test func aConnectionMadeEndsTheAttemptAndItsDeadline() {
        var machine = Machine()
        #expect(machine.start(1, timeout: .seconds(5)) == [.sendCreateConnection])
        #expect(machine.nextDeadline == nil, "the deadline runs from the controller's Command Status")
        #expect(machine.createConnectionSent(.success(()), now: .seconds(2)).isEmpty)
        #expect(machine.nextDeadline == .seconds(7))
        #expect(machine.connectionComplete(Self.complete(.success)) == [.finish(1, .success(Self.complete(.success)))])
        #expect(machine.nextDeadline == nil && machine.pending == nil)
        #expect(machine.start(2, timeout: .seconds(5)) == [.sendCreateConnection], "the next attempt may start")
    }

    @Test func aDeadlinePassedCancelsAndTheCancelsCompletionIsATimeout() {
        var machine = Machine()
        _ = machine.start(1, timeout: .seconds(5))
        _ = machine.createConnectionSent(.success(()), now: .seconds(1))
        #expect(machine.deadlinePassed(now: .milliseconds(5_999)).isEmpty, "early: nothing is due")
        #expect(machine.deadlinePassed(now: .seconds(6)) == [.sendCreateConnectionCancel])
        #expect(machine.nextDeadline == nil)
        #expect(machine.deadlinePassed(now: .seconds(7)).isEmpty, "one cancel per attempt")
        #expect(machine.cancelSent(.success(()), now: .seconds(7)).isEmpty)
        #expect(machine.nextDeadline == .seconds(9), "the cancel's LE Connection Complete is waited for, not forever")
        #expect(machine.connectionComplete(Self.complete(.unknownConnectionIdentifier))
            == [.finish(1, .failure(.timedOut(after: .seconds(5))))])
    }

    @Test func aCallerWhoCancelsBeforeTheCommandStatusIsCancelledOnceItComes() {
        var machine = Machine()
        _ = machine.start(1, timeout: .seconds(5))
        #expect(machine.cancelled(1).isEmpty, "nothing to cancel before the controller took the command")
        #expect(machine.createConnectionSent(.success(()), now: .zero) == [.sendCreateConnectionCancel])
        #expect(machine.connectionComplete(Self.complete(.unknownConnectionIdentifier)) == [.finish(1, .failure(.cancelled))])
    }

    @Test func aCallerWhoCancelsDuringTheTimeoutsCancelIsCancelled() {
        var machine = Machine()
        _ = machine.start(1, timeout: .seconds(5))
        _ = machine.createConnectionSent(.success(()), now: .zero)
        _ = machine.deadlinePassed(now: .seconds(5))
        #expect(machine.cancelled(1).isEmpty, "the cancel is already asked for")
        #expect(machine.connectionComplete(Self.complete(.unknownConnectionIdentifier)) == [.finish(1, .failure(.cancelled))])
    }

    @Test func aConnectionMadeBeforeTheCancelIsKept() {
        var machine = Machine()
        _ = machine.start(1, timeout: .seconds(5))
        _ = machine.createConnectionSent(.success(()), now: .zero)
        #expect(machine.cancelled(1) == [.sendCreateConnectionCancel])
        // Command Disallowed: the controller had stopped initiating; LE Connection Complete follows.
        #expect(machine.cancelSent(.failure(Self.disallowed), now: .seconds(1)).isEmpty)
        #expect(machine.connectionComplete(Self.complete(.success)) == [.finish(1, .success(Self.complete(.success)))])
    }

    @Test func aCancelThatFailsOtherwiseEndsTheAttemptWithItsError() {
        var machine = Machine()
        _ = machine.start(1, timeout: .seconds(5))
        _ = machine.createConnectionSent(.success(()), now: .zero)
        _ = machine.deadlinePassed(now: .seconds(5))
        let silent = HCIError.commandTimeout(.leCreateConnectionCancel, after: .seconds(2))
        #expect(machine.cancelSent(.failure(silent), now: .seconds(7)) == [.finish(1, .failure(.command(silent)))])
        #expect(machine.pending == nil)
        #expect(machine.connectionComplete(Self.complete(.unknownConnectionIdentifier)).isEmpty, "a late completion finds no attempt")
        // A late connection nobody waits for is ended, not left open.
        #expect(machine.connectionComplete(Self.complete(.success)) == [.disconnect(0x0040)])
    }

    @Test func aCancelWhoseCompletionNeverComesEndsTheAttempt() {
        var machine = Machine()
        _ = machine.start(1, timeout: .seconds(5))
        _ = machine.createConnectionSent(.success(()), now: .zero)
        _ = machine.deadlinePassed(now: .seconds(5))
        _ = machine.cancelSent(.success(()), now: .seconds(5))
        #expect(machine.deadlinePassed(now: .milliseconds(6_999)).isEmpty)
        #expect(machine.deadlinePassed(now: .seconds(7)) == [.finish(1, .failure(.noCompletion(after: Machine.cancelCompletionTimeout)))])
        #expect(machine.pending == nil && machine.nextDeadline == nil)
        #expect(machine.connectionComplete(Self.complete(.success)) == [.disconnect(0x0040)], "a late connection is ended")
        #expect(machine.start(2, timeout: .seconds(5)) == [.sendCreateConnection], "the controller may be asked again")
    }

    @Test func aRefusedCreateConnectionEndsTheAttempt() {
        var machine = Machine()
        _ = machine.start(1, timeout: .seconds(5))
        let refused = HCIError.commandFailed(.leCreateConnection, .commandDisallowed)
        #expect(machine.createConnectionSent(.failure(refused), now: .zero) == [.finish(1, .failure(.command(refused)))])
        #expect(machine.nextDeadline == nil && machine.pending == nil)
    }

    @Test func aFailedCompletionCarriesItsStatus() {
        var machine = Machine()
        _ = machine.start(1, timeout: .seconds(5))
        _ = machine.createConnectionSent(.success(()), now: .zero)
        #expect(machine.connectionComplete(Self.complete(.connectionFailedToBeEstablished))
            == [.finish(1, .failure(.rejected(.connectionFailedToBeEstablished)))])
    }

    @Test func unknownConnectionIdentifierWithoutACancelIsARejection() {
        var machine = Machine()
        _ = machine.start(1, timeout: .seconds(5))
        _ = machine.createConnectionSent(.success(()), now: .zero)
        #expect(machine.connectionComplete(Self.complete(.unknownConnectionIdentifier))
            == [.finish(1, .failure(.rejected(.unknownConnectionIdentifier)))])
    }

    @Test func theControllersCloseEndsTheAttemptAndRefusesTheNext() {
        var machine = Machine()
        _ = machine.start(1, timeout: .seconds(5))
        _ = machine.createConnectionSent(.success(()), now: .zero)
        let closed = HCIError.closed(nil)
        #expect(machine.closed(closed) == [.finish(1, .failure(.closed(closed)))])
        #expect(machine.nextDeadline == nil)
        #expect(machine.start(2, timeout: .seconds(5)) == [.finish(2, .failure(.closed(closed)))])
        #expect(machine.deadlinePassed(now: .seconds(10)).isEmpty)
    }

    @Test func strayInputsChangeNothing() {
        var machine = Machine()
        #expect(machine.connectionComplete(Self.complete(.success)).isEmpty, "no attempt ever ended unsure: not ours to end")
        #expect(machine.connectionComplete(Self.complete(.connectionFailedToBeEstablished)).isEmpty)
        #expect(machine.createConnectionSent(.success(()), now: .zero).isEmpty)
        #expect(machine.cancelSent(.failure(Self.disallowed), now: .zero).isEmpty)
        _ = machine.start(1, timeout: .seconds(5))
        _ = machine.createConnectionSent(.success(()), now: .zero)
        #expect(machine.cancelled(2).isEmpty, "another attempt's caller cancels nothing here")
        #expect(machine.start(3, timeout: .seconds(5))
            == [.finish(3, .failure(.command(.commandFailed(.leCreateConnection, .commandDisallowed))))], "one attempt at a time")
        #expect(machine.pending == 1 && machine.nextDeadline == .seconds(5))
    }
}
