import Testing
import StrobeHCI

/// The command flow machine driven by scripted inputs: no transport, no clock, no tasks.
@Suite struct HCICommandFlowTests {
    typealias Flow = HCICommandFlow<Int>

    private static func packet(_ opcode: HCIOpcode) -> [UInt8] {
        [0x01, UInt8(opcode.rawValue & 0xFF), UInt8(opcode.rawValue >> 8), 0]
    }

    private static func enqueue(_ flow: inout Flow, _ token: Int, _ opcode: HCIOpcode, now: Duration = .zero,
                                timeout: Duration = .seconds(2)) {
        let refused = flow.enqueue(token, opcode: opcode, completion: .commandComplete, packet: packet(opcode),
                                   now: now, timeout: timeout)
        #expect(refused.isEmpty)
    }

    private static func writes(_ flow: inout Flow) -> [[UInt8]] {
        var written: [[UInt8]] = []
        while let next = flow.takeWrite() { written.append(next.packet) }
        return written
    }

    @Test func creditsGateWritesAndAnswersHandThemOut() {
        var flow = Flow()
        Self.enqueue(&flow, 1, .reset)
        Self.enqueue(&flow, 2, .leSetScanEnable)
        #expect(Self.writes(&flow) == [Self.packet(.reset)])
        #expect(flow.credits == 0 && flow.queued.count == 1)

        let ended = flow.answered(opcode: .reset, credits: 2, status: nil, returnParameters: [0x00])
        #expect(ended.map(\.token) == [1])
        #expect(ended.first?.result == .success(.complete([0x00])))
        #expect(Self.writes(&flow) == [Self.packet(.leSetScanEnable)])
        #expect(flow.credits == 1)
        #expect(flow.nextDeadline == .seconds(2))
    }

    @Test func aNOPOnlyHandsOutCredits() {
        var flow = Flow()
        Self.enqueue(&flow, 1, .reset)
        _ = Self.writes(&flow)
        let answered = flow.answered(opcode: .reset, credits: 0, status: nil, returnParameters: [0])
        #expect(answered.count == 1)
        Self.enqueue(&flow, 2, .leSetScanEnable)
        #expect(Self.writes(&flow).isEmpty)
        let nop = flow.answered(opcode: .nop, credits: 1, status: nil, returnParameters: [])
        #expect(nop.isEmpty)
        #expect(Self.writes(&flow) == [Self.packet(.leSetScanEnable)])
        #expect(flow.unexpectedAnswers == 0)
    }

    @Test func aControllerThatGrantsNoCreditsFailsQueuedCommandsAtTheirDeadline() {
        var flow = Flow()
        Self.enqueue(&flow, 1, .reset)
        _ = Self.writes(&flow)
        _ = flow.answered(opcode: .reset, credits: 0, status: nil, returnParameters: [0])
        Self.enqueue(&flow, 2, .leSetScanEnable, now: .milliseconds(100))
        #expect(flow.nextDeadline == .milliseconds(2100))
        let early = flow.expire(now: .milliseconds(2099))
        #expect(early.isEmpty)
        let ended = flow.expire(now: .milliseconds(2100))
        #expect(ended.map(\.token) == [2])
        #expect(ended.first?.result == .failure(.noCommandCredits(.leSetScanEnable, after: .seconds(2))))
        #expect(flow.queued.isEmpty && flow.nextDeadline == nil && flow.commandTimeouts == 1)
    }

    @Test func anUnansweredCommandTimesOutAndTheQueueMovesOn() {
        var flow = Flow()
        Self.enqueue(&flow, 1, .reset)
        Self.enqueue(&flow, 2, .leSetScanEnable, now: .milliseconds(500))
        _ = Self.writes(&flow)
        let ended = flow.expire(now: .seconds(2))
        #expect(ended.first?.result == .failure(.commandTimeout(.reset, after: .seconds(2))))
        // The answer is taken as lost: one credit, and the next command goes out.
        #expect(Self.writes(&flow) == [Self.packet(.leSetScanEnable)])
        #expect(flow.nextDeadline == .milliseconds(2500))
    }

    @Test func cancellationWithdrawsQueuedCommandsAndKeepsWrittenOnesForTheirAnswer() {
        var flow = Flow()
        Self.enqueue(&flow, 1, .reset)
        Self.enqueue(&flow, 2, .leSetScanEnable)
        _ = Self.writes(&flow)
        flow.cancel(2)
        flow.cancel(1)
        #expect(flow.queued.isEmpty && flow.inFlight.count == 1)
        #expect(flow.nextDeadline == nil)
        // The written command's answer is matched (not unexpected) and ends nobody.
        let late = flow.answered(opcode: .reset, credits: 1, status: nil, returnParameters: [0])
        #expect(late.isEmpty)
        #expect(flow.unexpectedAnswers == 0 && flow.inFlight.isEmpty)
        #expect(Self.writes(&flow).isEmpty)
    }

    @Test func cancellingAtEveryStepEndsNothingTwice() {
        // Cancel before the write, between write and answer, after the answer: each token ends
        // at most once, and credits stay right.
        for step in 0..<3 {
            var flow = Flow()
            Self.enqueue(&flow, 1, .reset)
            if step == 0 { flow.cancel(1) }
            _ = Self.writes(&flow)
            if step == 1 { flow.cancel(1) }
            let ended = flow.answered(opcode: .reset, credits: 1, status: nil, returnParameters: [0])
            if step == 2 { flow.cancel(1) }
            #expect(ended.count == (step == 2 ? 1 : 0), "step \(step)")
            let expired = flow.expire(now: .seconds(10))
            #expect(flow.credits == 1 && expired.isEmpty, "step \(step)")
        }
    }

    @Test func aCommandStatusSuccessDoesNotEndACommandCompleteCommand() {
        var flow = Flow()
        Self.enqueue(&flow, 1, .leSetScanEnable)
        _ = Self.writes(&flow)
        let passing = flow.answered(opcode: .leSetScanEnable, credits: 1, status: .success, returnParameters: [])
        #expect(passing.isEmpty)
        let ended = flow.answered(opcode: .leSetScanEnable, credits: 1, status: .commandDisallowed, returnParameters: [])
        #expect(ended.first?.result == .success(.status(.commandDisallowed)))
    }

    @Test func aFailedWriteGivesTheCreditBack() {
        var flow = Flow()
        Self.enqueue(&flow, 1, .reset)
        let write = flow.takeWrite()
        let ended = flow.writeFailed(id: write?.id ?? 0, error: .transport(.closedByPeer))
        #expect(ended.first?.result == .failure(.transport(.closedByPeer)))
        #expect(flow.credits == 1 && flow.inFlight.isEmpty)
    }

    @Test func closeFailsEverythingOnceAndLaterCommandsAtOnce() {
        var flow = Flow()
        Self.enqueue(&flow, 1, .reset)
        Self.enqueue(&flow, 2, .leSetScanEnable)
        _ = Self.writes(&flow)
        let ended = flow.close(.closed(.closedByPeer))
        #expect(Set(ended.map(\.token)) == [1, 2])
        let again = flow.close(.closed(nil))
        #expect(again.isEmpty)
        let refused = flow.enqueue(3, opcode: .reset, completion: .commandComplete, packet: [], now: .zero, timeout: .seconds(1))
        #expect(refused.first?.result == .failure(.closed(.closedByPeer)))
        let afterClose = flow.answered(opcode: .reset, credits: 1, status: nil, returnParameters: [0])
        #expect(afterClose.isEmpty)
    }
}
