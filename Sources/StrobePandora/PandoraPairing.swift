import Foundation
import Strobe
import StrobeBase
import Synchronization
import SwiftProtobuf

/// The user's part in pairing, played by the test runner over Security.OnPairing: each
/// question the Security Manager asks becomes a `PairingEvent` on the open stream, and the
/// answer echoed back with that event goes back to the pairing. With no stream open, questions
/// are answered yes (and passkeys not entered), as a device without a user would.
///
/// The IO capability is NoInputNoOutput, so LE pairings are Just Works; the runner is asked
/// to confirm them where Numeric Comparison would show its number.
package final class PandoraPairing: PairingDelegate, Sendable {
    private struct Question: Sendable {
        var id: UInt64
        var event: Pandora_PairingEvent
        /// `.some(nil)`: withdrawn unanswered.
        var answer: CheckedContinuation<Pandora_PairingEventAnswer??, Never>
    }

    private struct State {
        var stream: (id: UInt64, continuation: AsyncStream<Pandora_PairingEvent>.Continuation)?
        var nextStreamID: UInt64 = 0
        var nextQuestionID: UInt64 = 0
        var questions: [Question] = []
    }

    private let state = Lock(State())
    /// The cookie of the link to a peer (questions name the peer by its address).
    private let connectionFor: @Sendable (BluetoothAddress) -> Pandora_Connection?

    package init(connectionFor: @escaping @Sendable (BluetoothAddress) -> Pandora_Connection?) {
        self.connectionFor = connectionFor
    }

    // MARK: PairingDelegate

    package var ioCapability: SMPIOCapability { .noInputNoOutput }
    package var confirmsJustWorks: Bool { true }

    package func confirmJustWorks(with peer: BluetoothAddress) async -> Bool {
        await confirm(event(for: peer) { $0.justWorks = Google_Protobuf_Empty() })
    }

    package func confirmNumber(_ number: UInt32, with peer: BluetoothAddress) async -> Bool {
        await confirm(event(for: peer) { $0.numericComparison = number })
    }

    package func displayPasskey(_ passkey: UInt32, to peer: BluetoothAddress) async {
        let event = event(for: peer) { $0.passkeyEntryNotification = passkey }
        _ = state.withLock { $0.stream?.continuation.yield(event) }
    }

    package func enterPasskey(for peer: BluetoothAddress) async -> UInt32? {
        let outcome = await ask(event(for: peer) { $0.passkeyEntryRequest = Google_Protobuf_Empty() })
        if case .answered(let answer) = outcome, case .passkey(let passkey)? = answer.answer { return passkey }
        return nil  // no runner, or no passkey given: refused
    }

    // MARK: The OnPairing stream

    /// Opens the stream of events (one at a time: a new one ends the last, whose questions
    /// are asked again on the new one).
    package func open() -> (id: UInt64, events: AsyncStream<Pandora_PairingEvent>) {
        let (events, continuation) = AsyncStream.makeStream(of: Pandora_PairingEvent.self)
        let (id, previous, pending) = state.withLock { s in
            s.nextStreamID += 1
            let previous = s.stream?.continuation
            s.stream = (s.nextStreamID, continuation)
            return (s.nextStreamID, previous, s.questions.map(\.event))
        }
        previous?.finish()
        for event in pending { continuation.yield(event) }
        return (id, events)
    }

    /// The stream `id` closed: questions still open are refused.
    package func close(_ id: UInt64) {
        let questions = state.withLock { s -> [Question] in
            guard s.stream?.id == id else { return [] }
            s.stream?.continuation.finish()
            s.stream = nil
            defer { s.questions.removeAll() }
            return s.questions
        }
        for question in questions { question.answer.resume(returning: .some(nil)) }
    }

    /// An answer from the runner, for the open question whose event it echoes (the oldest of
    /// equal ones); an answer that echoes none is dropped.
    package func receive(_ answer: Pandora_PairingEventAnswer) {
        let question = state.withLock { s -> Question? in
            guard let index = s.questions.firstIndex(where: { $0.event == answer.event }) else { return nil }
            return s.questions.remove(at: index)
        }
        question?.answer.resume(returning: .some(answer))
    }

    /// Every open question ends unanswered (a factory reset, or the link went away).
    func cancelQuestions(for connection: Pandora_Connection? = nil) {
        let questions = state.withLock { s -> [Question] in
            let ending = s.questions.filter { connection == nil || $0.event.connection == connection }
            s.questions.removeAll { connection == nil || $0.event.connection == connection }
            return ending
        }
        for question in questions { question.answer.resume(returning: .some(nil)) }
    }

    // MARK: Asking

    private func withdraw(_ id: UInt64) {
        let question = state.withLock { s -> Question? in
            guard let index = s.questions.firstIndex(where: { $0.id == id }) else { return nil }
            return s.questions.remove(at: index)
        }
        question?.answer.resume(returning: .some(nil))
    }

    private func event(for peer: BluetoothAddress, _ method: (inout Pandora_PairingEvent) -> Void) -> Pandora_PairingEvent {
        var event = Pandora_PairingEvent()
        if let connection = connectionFor(peer) { event.connection = connection } else { event.address = peer.pandora }
        method(&event)
        return event
    }

    private func confirm(_ event: Pandora_PairingEvent) async -> Bool {
        switch await ask(event) {
        case .noRunner: true
        case .unanswered: false
        case .answered(let answer):
            if case .confirm(let yes)? = answer.answer { yes } else { false }  // no confirmation: refused
        }
    }

    private enum Outcome {
        /// No OnPairing stream was open: a device without a user.
        case noRunner
        /// The stream closed, or the question was withdrawn, before an answer came.
        case unanswered
        case answered(Pandora_PairingEventAnswer)
    }

    /// Asks on the open stream; a question whose pairing ended (the asking task cancelled) is
    /// withdrawn unanswered.
    private func ask(_ event: Pandora_PairingEvent) async -> Outcome {
        let id = state.withLock { s in
            s.nextQuestionID += 1
            return s.nextQuestionID
        }
        let answer: Pandora_PairingEventAnswer?? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let asked = state.withLock { s -> Bool? in
                    guard let stream = s.stream else { return false }
                    guard !Task.isCancelled else { return nil }
                    s.questions.append(Question(id: id, event: event, answer: continuation))
                    stream.continuation.yield(event)
                    return true
                }
                switch asked {
                case false?: continuation.resume(returning: .none)
                case nil: continuation.resume(returning: .some(nil))
                case true?: break
                }
            }
        } onCancel: {
            withdraw(id)
        }
        switch answer {
        case .none: return .noRunner
        case .some(.none): return .unanswered
        case .some(.some(let answer)): return .answered(answer)
        }
    }
}
