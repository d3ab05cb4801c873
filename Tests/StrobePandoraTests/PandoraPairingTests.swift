import Strobe
import SwiftProtobuf
import Testing
import StrobePandora

/// The user's part in pairing, played over OnPairing: questions become events, echoed answers
/// go back to the question they name.
@Suite(.timeLimit(.minutes(1))) struct PandoraPairingTests {
    static let peer = BluetoothAddress("C4:00:00:00:00:01")!

    @Test func withNoRunnerJustWorksGoesOnAndNoPasskeyIsEntered() async {
        let pairing = PandoraPairing { _ in nil }
        #expect(await pairing.confirmJustWorks(with: Self.peer))
        #expect(await pairing.enterPasskey(for: Self.peer) == nil)
    }

    @Test func anEchoedAnswerGoesToItsQuestion() async throws {
        let pairing = PandoraPairing { _ in Pandora_Connection(id: 7) }
        let (_, events) = pairing.open()
        var iterator = events.makeAsyncIterator()
        async let justWorks = pairing.confirmJustWorks(with: Self.peer)
        let first = try #require(await iterator.next())
        #expect(first.connection == Pandora_Connection(id: 7))
        #expect(first.justWorks == Google_Protobuf_Empty())
        async let passkey = pairing.enterPasskey(for: Self.peer)
        let second = try #require(await iterator.next())
        // Answered out of order: each answer names its event.
        var typed = Pandora_PairingEventAnswer()
        typed.event = second
        typed.passkey = 123_456
        pairing.receive(typed)
        var refused = Pandora_PairingEventAnswer()
        refused.event = first
        refused.confirm = false
        pairing.receive(refused)
        #expect(await passkey == 123_456)
        #expect(await justWorks == false)
    }

    @Test func aQuestionWhosePairingEndedIsWithdrawn() async throws {
        let pairing = PandoraPairing { _ in nil }
        let (_, events) = pairing.open()
        var iterator = events.makeAsyncIterator()
        let asking = Task { await pairing.confirmJustWorks(with: Self.peer) }
        let event = try #require(await iterator.next())
        asking.cancel()
        #expect(await asking.value == false)
        // Its answer, come late, goes nowhere.
        var late = Pandora_PairingEventAnswer()
        late.event = event
        late.confirm = true
        pairing.receive(late)
        async let next = pairing.confirmJustWorks(with: Self.peer)
        _ = try #require(await iterator.next())
        pairing.receive(late)
        #expect(await next == true)
    }

    @Test func aClosedStreamRefusesWhatIsStillAsked() async throws {
        let pairing = PandoraPairing { _ in nil }
        let (id, events) = pairing.open()
        var iterator = events.makeAsyncIterator()
        async let answer = pairing.confirmNumber(123_456, with: Self.peer)
        let event = try #require(await iterator.next())
        #expect(event.address == Self.peer.pandora)
        #expect(event.numericComparison == 123_456)
        pairing.close(id)
        #expect(await answer == false)
    }
}
