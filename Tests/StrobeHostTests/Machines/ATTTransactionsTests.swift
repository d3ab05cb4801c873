import Testing
import StrobeHost

/// The ATT transaction machine driven by scripted inputs: no channel, no clock, no tasks.
@Suite struct ATTTransactionsTests {
    typealias Machine = ATTTransactions<Int>

    /// What an action list says, in words a test can compare.
    private static func describe(_ actions: [Machine.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .send(let id, let pdu): "send \(id) \(pdu)"
            case .turn(let token): "turn \(token)"
            case .withdraw(let token): "withdraw \(token)"
            case .complete(let token, .success(let bytes)): "complete \(token) \(bytes)"
            case .complete(let token, .failure(let error)): "fail \(token) \(error)"
            case .close(let reason): "close \(reason)"
            }
        }
    }

    private static let read: [UInt8] = [0x0A, 0x02, 0x00]
    private static let readResponse: [UInt8] = [0x0B, 0x07]

    @Test func oneOutstandingTheRestInOrder() {
        var machine = Machine(timeout: .seconds(30))
        #expect(Self.describe(machine.enqueue(1, opcode: .readRequest, pdu: Self.read, now: .zero)) == ["send 1 [10, 2, 0]"])
        #expect(machine.enqueue(2, opcode: .readRequest, pdu: Self.read, now: .seconds(1)).isEmpty)
        let (outcome, actions) = machine.received(.readResponse, errorFor: nil, result: .success(Self.readResponse), armedFired: false)
        #expect(outcome == .completed)
        #expect(Self.describe(actions) == ["complete 1 [11, 7]", "send 2 [10, 2, 0]"])
        #expect(machine.nextDeadline == .seconds(31))
    }

    @Test func wrongAndStrayResponsesAreViolationsThatEndNothing() {
        var machine = Machine(timeout: .seconds(30))
        let stray = machine.received(.readResponse, errorFor: nil, result: .success([0x0B]), armedFired: false)
        #expect(stray.0 == .unexpected && stray.1.isEmpty)
        _ = machine.enqueue(1, opcode: .readRequest, pdu: Self.read, now: .zero)
        let wrong = machine.received(.writeResponse, errorFor: nil, result: .success([0x13]), armedFired: false)
        #expect(wrong.0 == .mismatched(request: .readRequest) && wrong.1.isEmpty)
        let wrongError = machine.received(.errorResponse, errorFor: .writeRequest, result: .success([]), armedFired: false)
        #expect(wrongError.0 == .mismatched(request: .readRequest))
        #expect(machine.outstanding?.opcode == .readRequest)
    }

    @Test func theOutstandingRequestsDeadlineClosesTheBearerAndFailsEveryone() {
        var machine = Machine(timeout: .seconds(30))
        _ = machine.enqueue(1, opcode: .readRequest, pdu: Self.read, now: .zero)
        _ = machine.enqueue(2, opcode: .readRequest, pdu: Self.read, now: .seconds(5))
        #expect(machine.expire(now: .milliseconds(29_999)).isEmpty)
        let actions = Self.describe(machine.expire(now: .seconds(30)))
        #expect(actions.first == "close Read Request (0x0A) timed out")
        #expect(actions.count == 3)
        #expect(machine.closedWith == .transactionTimeout(request: .readRequest))
        let refused = machine.enqueue(3, opcode: .readRequest, pdu: Self.read, now: .seconds(31))
        #expect(Self.describe(refused) == ["fail 3 ATT transaction timeout waiting for the response to Read Request (0x0A)"])
    }

    @Test func cancellationAtEveryStep() {
        // Queued: leaves unsent. Outstanding: runs on without its caller; its response is
        // matched, counted as abandoned, and the next request goes.
        var machine = Machine(timeout: .seconds(30))
        _ = machine.enqueue(1, opcode: .readRequest, pdu: Self.read, now: .zero)
        _ = machine.enqueue(2, opcode: .readRequest, pdu: Self.read, now: .zero)
        _ = machine.enqueue(3, opcode: .readRequest, pdu: Self.read, now: .zero)
        machine.cancel(2)
        machine.cancel(1)
        #expect(machine.queue.map(\.token) == [3])
        let (outcome, actions) = machine.received(.readResponse, errorFor: nil, result: .success(Self.readResponse), armedFired: false)
        #expect(outcome == .completed && machine.abandonedResponses == 1)
        #expect(Self.describe(actions) == ["send 3 [10, 2, 0]"])
        // After its answer: nothing left to cancel.
        _ = machine.received(.readResponse, errorFor: nil, result: .success(Self.readResponse), armedFired: false)
        machine.cancel(3)
        #expect(machine.outstanding == nil && machine.queue.isEmpty)
    }

    @Test func anArmedRequestHoldsTheSlotUntilFiredOrWithdrawn() {
        var machine = Machine(timeout: .seconds(30))
        #expect(Self.describe(machine.enqueueArmed(1, opcode: .writeRequest, now: .zero)) == ["turn 1"])
        #expect(machine.nextDeadline == nil)
        // A request made later asks it to give way; withdrawn, the slot moves on.
        #expect(Self.describe(machine.enqueue(2, opcode: .readRequest, pdu: Self.read, now: .seconds(1))) == ["withdraw 1"])
        #expect(Self.describe(machine.withdrawn(1)) == ["send 2 [10, 2, 0]"])

        // Fired instead: its deadline starts, its response ends it, nobody else is ended.
        var fired = Machine(timeout: .seconds(30))
        _ = fired.enqueueArmed(1, opcode: .writeRequest, now: .zero)
        _ = fired.enqueue(2, opcode: .readRequest, pdu: Self.read, now: .zero)
        #expect(fired.fired(1, now: .seconds(2)).isEmpty)
        #expect(fired.nextDeadline == .seconds(30))
        let (outcome, actions) = fired.received(.writeResponse, errorFor: nil, result: .success([0x13]), armedFired: true)
        #expect(outcome == .completed)
        #expect(Self.describe(actions) == ["complete 1 [19]", "send 2 [10, 2, 0]"])
    }

    @Test func aResponseBeforeTheArmedWriteWentOutIsNotItsOwn() {
        var machine = Machine(timeout: .seconds(30))
        _ = machine.enqueueArmed(1, opcode: .writeRequest, now: .zero)
        let early = machine.received(.writeResponse, errorFor: nil, result: .success([0x13]), armedFired: false)
        #expect(early.0 == .unexpected)
        // Fired but not yet settled: the response is its own.
        let late = machine.received(.writeResponse, errorFor: nil, result: .success([0x13]), armedFired: true)
        #expect(late.0 == .completed)
    }

    @Test func aSendFailureEndsTheRequestWithTheChannelsError() {
        struct Gone: Error {}
        var machine = Machine(timeout: .seconds(30))
        _ = machine.enqueue(1, opcode: .readRequest, pdu: Self.read, now: .zero)
        _ = machine.enqueue(2, opcode: .readRequest, pdu: Self.read, now: .zero)
        let id = machine.outstanding?.id ?? 0
        let actions = machine.sendFailed(id: id, error: Gone())
        #expect(Self.describe(actions).count == 2)
        #expect(machine.outstanding?.token == 2)
    }

    @Test func closeWithdrawsAnArmedRequestAndFailsEveryone() {
        var machine = Machine(timeout: .seconds(30))
        _ = machine.enqueueArmed(1, opcode: .writeRequest, now: .zero)
        _ = machine.enqueueArmed(2, opcode: .writeRequest, now: .zero)
        let actions = Self.describe(machine.close(.local))
        #expect(actions == ["close closed locally", "withdraw 1", "fail 1 ATT bearer closed: closed locally",
                            "withdraw 2", "fail 2 ATT bearer closed: closed locally"])
        #expect(machine.close(.local).isEmpty)
    }
}
