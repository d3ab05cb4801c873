import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// An in-memory L2CAP channel: records every PDU the bearer sends and hands it to a peer
/// (the test server), which may answer synchronously from inside `send`.
final class FakeATTChannel: ATTChannel {
    let maximumPayload: Int

    private struct State {
        var sent: [[UInt8]] = []
        var peer: (@Sendable ([UInt8]) -> Void)?
        var failure: (any Error)?
        var watchers: [(predicate: @Sendable ([[UInt8]]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
        var armable = true
        var linkBusy = false
        var armed: [FakeArmedPacket] = []
    }

    private let state = Lock(State())

    init(maximumPayload: Int = 1024) { self.maximumPayload = maximumPayload }

    func connect(_ peer: @escaping @Sendable ([UInt8]) -> Void) { state.withLock { $0.peer = peer } }
    func failSends(with error: (any Error)?) { state.withLock { $0.failure = error } }

    var sent: [[UInt8]] { state.withLock { $0.sent } }
    func sent(_ opcode: ATTOpcode) -> [[UInt8]] { sent.filter { $0.first == opcode.rawValue } }

    /// Whether `prepare` succeeds (a real link refuses when no controller buffer is free).
    func setArmable(_ armable: Bool) { state.withLock { $0.armable = armable } }
    var armedPackets: [FakeArmedPacket] { state.withLock { $0.armed } }

    func prepare(_ pdu: [UInt8]) -> (any ATTPreparedPDU)? {
        state.withLock { state in
            guard state.armable else { return nil }
            let packet = FakeArmedPacket(pdu: pdu, channel: self)
            state.armed.append(packet)
            return packet
        }
    }

    /// Makes a prepared PDU's send fail, as a link part-way through another PDU does.
    func setLinkBusy(_ busy: Bool) { state.withLock { $0.linkBusy = busy } }
    var isLinkBusy: Bool { state.withLock { $0.linkBusy } }

    func post(_ pdu: [UInt8], completion: (@Sendable (Result<Void, any Error>) -> Void)?) {
        do {
            try deliver(pdu)
            completion?(.success(()))
        } catch {
            completion?(.failure(error))
        }
    }

    func send(_ pdu: [UInt8]) async throws {
        try deliver(pdu)
    }

    /// Records `pdu` and hands it to the peer, on the caller's thread.
    func deliver(_ pdu: [UInt8]) throws {
        let (peer, ready, failure) = state.withLock { state -> ((@Sendable ([UInt8]) -> Void)?, [CheckedContinuation<Void, Never>], (any Error)?) in
            if let failure = state.failure { return (nil, [], failure) }
            state.sent.append(pdu)
            let sent = state.sent
            let ready = state.watchers.filter { $0.predicate(sent) }.map(\.continuation)
            state.watchers.removeAll { $0.predicate(sent) }
            return (state.peer, ready, nil)
        }
        if let failure { throw failure }
        for watcher in ready { watcher.resume() }
        peer?(pdu)
    }

    /// Returns once the PDUs sent so far satisfy `predicate`.
    func waitUntil(_ predicate: @escaping @Sendable ([[UInt8]]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if predicate(state.sent) { return true }
                state.watchers.append((predicate, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func waitUntilSent(count: Int) async { await waitUntil { $0.count >= count } }

    func waitUntilSent(_ opcode: ATTOpcode, count: Int = 1) async {
        await waitUntil { sent in sent.filter { $0.first == opcode.rawValue }.count >= count }
    }
}

/// A prepared PDU of the fake channel: `send()` records it and hands it to the peer at once.
final class FakeArmedPacket: ATTPreparedPDU {
    let pdu: [UInt8]
    private weak let channel: FakeATTChannel?
    private let held = Atomic<Bool>(true)
    private let releases = Atomic<Int>(0)
    private let sends = Atomic<Int>(0)

    init(pdu: [UInt8], channel: FakeATTChannel) {
        self.pdu = pdu
        self.channel = channel
    }

    var releaseCount: Int { releases.load(ordering: .relaxed) }
    var sendCount: Int { sends.load(ordering: .relaxed) }

    func send(committing commit: () -> Bool) -> ATTPreparedSendResult {
        guard let channel, !channel.isLinkBusy else { return .linkBusy }
        guard commit() else { return .declined }
        guard held.exchange(false, ordering: .acquiringAndReleasing) else { return .failed }
        sends.add(1, ordering: .relaxed)
        do {
            try channel.deliver(pdu)
            return .sent
        } catch {
            return .failed
        }
    }

    func warm() -> UInt { held.load(ordering: .relaxed) ? 1 : 0 }

    /// Counts buffers given back unsent.
    func discard() {
        if held.exchange(false, ordering: .acquiringAndReleasing) { releases.add(1, ordering: .relaxed) }
    }
}
