import StrobeHCI
import Testing
import StrobeHost

/// A link's LE signalling outside its channels, driven by scripted inputs: no controller, no
/// clock, no tasks.
@Suite struct LESignalingAnswersTests {
    typealias Machine = LESignalingAnswers<Int>

    static let central = Machine(role: .central, policy: .lowLatency)
    static let peripheral = Machine(role: .peripheral, policy: .lowLatency)

    /// Connection Parameter Update Request for `parameters`.
    static func updateRequest(_ identifier: UInt8, _ parameters: LEConnectionParameters) -> LESignalingPacket {
        ConnectionParameterUpdateRequest(intervalMin: parameters.intervalMin, intervalMax: parameters.intervalMax,
                                         latency: parameters.maxLatency, timeout: parameters.supervisionTimeout)
            .request(identifier: identifier)
    }

    static func response(_ identifier: UInt8, _ data: [UInt8]) -> LESignalingPacket {
        LESignalingPacket(code: LESignalingCode.connectionParameterUpdateResponse.rawValue, identifier: identifier, data: data)
    }

    static let wanted = LEConnectionParameters(intervalMin: 6, intervalMax: 12, maxLatency: 0, supervisionTimeout: 200)

    @Test func aCentralAcceptsARequestWithinItsPolicyNarrowedToIt() {
        var machine = Self.central
        let asked = LEConnectionParameters(intervalMin: 6, intervalMax: 0x100, maxLatency: 2, supervisionTimeout: 200)
        let narrowed = LEConnectionParameters(intervalMin: 6, intervalMax: 0x50, maxLatency: 2, supervisionTimeout: 200)
        #expect(machine.received(Self.updateRequest(7, asked)) == [.respond(identifier: 7, accepted: narrowed)])
        #expect(machine.requestsReceived == 1 && machine.requestsAccepted == 1)
    }

    @Test func aCentralRefusesARequestOutsideItsPolicy() {
        var machine = Self.central
        let slow = LEConnectionParameters(intervalMin: 0x0C80, intervalMax: 0x0C80, maxLatency: 0, supervisionTimeout: 0x0C80)
        #expect(machine.received(Self.updateRequest(3, slow)) == [.respond(identifier: 3, accepted: nil)])
        #expect(machine.requestsReceived == 1 && machine.requestsAccepted == 0)
    }

    @Test func aMalformedRequestIsRejectedAndCountedAsMalformedNotAsARequest() {
        var machine = Self.central
        var packet = Self.updateRequest(9, Self.wanted)
        packet.data.removeLast()
        let code = LESignalingCode.connectionParameterUpdateRequest.rawValue
        #expect(machine.received(packet) == [.malformed(.lengthMismatch(code: code, announced: 8, actual: 7)), .reject(identifier: 9)])
        #expect(machine.requestsReceived == 0)
    }

    @Test func aPeripheralRejectsTheRequestOnlyACentralServes() {
        var machine = Self.peripheral
        #expect(machine.received(Self.updateRequest(2, Self.wanted)) == [.reject(identifier: 2)])
        #expect(machine.requestsReceived == 0)
    }

    @Test func unknownCommandsAreRejectedAndNoticesLeftUnanswered() {
        var machine = Self.central
        #expect(machine.received(LESignalingPacket(code: 0x7F, identifier: 4, data: [])) == [.reject(identifier: 4)])
        #expect(machine.received(LESignalingPacket.commandNotUnderstood(identifier: 6)).isEmpty)
        #expect(machine.received(LESignalingPacket(code: LESignalingCode.flowControlCredit.rawValue, identifier: 8, data: [0x40, 0, 1, 0])).isEmpty)
    }

    @Test func aPeripheralsRequestIsAnsweredByTheResponseWithItsIdentifier() {
        var machine = Self.peripheral
        #expect(machine.request(Self.wanted, identifier: 11, for: 1) == [.sendRequest(Self.updateRequest(11, Self.wanted))])
        #expect(machine.pending?.identifier == 11)
        #expect(machine.requestSent(for: 1) == [.awaitResponse])
        #expect(machine.received(Self.response(12, [0, 0])).isEmpty, "another identifier's response is dropped")
        #expect(machine.received(Self.response(11, [0, 0])) == [.responseSettled, .finish(1, .success(true))])
        #expect(machine.pending == nil)
        _ = machine.request(Self.wanted, identifier: 13, for: 2)
        #expect(machine.received(Self.response(13, [1, 0])) == [.responseSettled, .finish(2, .success(false))], "result 1: rejected")
    }

    @Test func aMalformedResponseFailsTheRequestWithWhatWasWrong() {
        var machine = Self.peripheral
        _ = machine.request(Self.wanted, identifier: 11, for: 1)
        let wrong = L2CAPSignalingError.lengthMismatch(code: LESignalingCode.connectionParameterUpdateResponse.rawValue, announced: 2, actual: 3)
        #expect(machine.received(Self.response(11, [0, 0, 0])) == [.malformed(wrong), .responseSettled, .finish(1, .failure(.malformed(wrong)))])
        #expect(machine.received(Self.response(11, [0, 0, 0])) == [.malformed(wrong)], "counted though nobody waits")
    }

    @Test func aSecondRequestSupersedesTheFirstAndALateSendStartsNoDeadline() {
        var machine = Self.peripheral
        _ = machine.request(Self.wanted, identifier: 11, for: 1)
        #expect(machine.request(Self.wanted, identifier: 12, for: 2)
            == [.responseSettled, .finish(1, .failure(.superseded)), .sendRequest(Self.updateRequest(12, Self.wanted))])
        #expect(machine.requestSent(for: 1).isEmpty, "the first request's send ends after it was replaced")
        #expect(machine.received(Self.response(11, [0, 0])).isEmpty, "the first request's response finds nobody")
        #expect(machine.requestSent(for: 2) == [.awaitResponse])
    }

    @Test func aRequestAnsweredBeforeItsSendReturnedStartsNoDeadline() {
        var machine = Self.peripheral
        _ = machine.request(Self.wanted, identifier: 11, for: 1)
        _ = machine.received(Self.response(11, [0, 0]))
        #expect(machine.requestSent(for: 1).isEmpty)
    }

    @Test func aCommandRejectOfOurRequestEndsItAtOnce() {
        var machine = Self.peripheral
        _ = machine.request(Self.wanted, identifier: 11, for: 1)
        _ = machine.requestSent(for: 1)
        #expect(machine.received(LESignalingPacket.commandNotUnderstood(identifier: 12)).isEmpty, "another command's reject")
        #expect(machine.received(LESignalingPacket.commandNotUnderstood(identifier: 11)) == [.responseSettled, .finish(1, .failure(.rejected))])
        #expect(machine.pending == nil)
    }

    @Test func aRequestWithoutResponseTimesOutOnce() {
        var machine = Self.peripheral
        _ = machine.request(Self.wanted, identifier: 11, for: 1)
        _ = machine.requestSent(for: 1)
        #expect(machine.responseTimedOut() == [.finish(1, .failure(.timedOut))])
        #expect(machine.pending == nil && machine.responseTimedOut().isEmpty)
        #expect(machine.received(Self.response(11, [0, 0])).isEmpty, "a late response finds nobody")
    }

    @Test func aWithdrawnRequestLeavesNothingWaiting() {
        var machine = Self.peripheral
        _ = machine.request(Self.wanted, identifier: 11, for: 1)
        #expect(machine.withdraw(2).isEmpty, "only the waiting caller withdraws")
        #expect(machine.withdraw(1) == [.responseSettled])
        #expect(machine.pending == nil && machine.received(Self.response(11, [0, 0])).isEmpty)
    }

    @Test func theLinksEndFailsTheRequestAndEveryLaterOne() {
        var machine = Self.peripheral
        _ = machine.request(Self.wanted, identifier: 11, for: 1)
        #expect(machine.linkClosed() == [.responseSettled, .finish(1, .failure(.disconnected))])
        #expect(machine.request(Self.wanted, identifier: 12, for: 2) == [.finish(2, .failure(.disconnected))])
        #expect(machine.pending == nil)
    }
}
