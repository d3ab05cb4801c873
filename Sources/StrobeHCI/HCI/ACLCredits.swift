/// Host-to-controller ACL flow control (Core Specification Vol 4, Part E, 4.1.1) as a state
/// machine that does no I/O and reads no clock: one credit per controller buffer, taken for each
/// packet and returned by Number Of Completed Packets or by the connection's end. Senders queue
/// first come, first served, each with a deadline counted from when it asked; one the controller
/// leaves waiting past it fails with `HCIError.noACLCredits`, which names what the controller did.
package struct ACLCredits<Token: Equatable> {
    package struct Grant {
        package var token: Token
        package var handle: ConnectionHandle
        package var result: Result<Void, HCIError>
    }

    fileprivate struct Request {
        var token: Token
        var handle: ConnectionHandle
        var askedAt: Duration
        var deadline: Duration
    }

    /// A wait for every packet sent on a handle to be reported completed (`flush`).
    package struct Flush {
        package var token: Token
        package var handle: ConnectionHandle
        /// Whether the controller reported every packet completed (or the link closed, so
        /// that none is left); false when the deadline passed first.
        package var sent: Bool
    }

    /// LE_ACL_Data_Packet_Length: the most data bytes one packet carries. 0 before configuration.
    package private(set) var maximumLength = 0
    /// Total_Num_LE_ACL_Data_Packets.
    package private(set) var total = 0
    package private(set) var credits = 0
    /// Packets sent on each handle that the controller has not reported completed.
    package private(set) var inFlight: [ConnectionHandle: Int] = [:]
    private var waiting: [Request] = []
    private var flushes: [PendingFlush] = []

    /// A flush: the packets in flight on its handle when it was asked, counted down as the
    /// controller reports them completed.
    fileprivate struct PendingFlush {
        var token: Token
        var handle: ConnectionHandle
        var remaining: Int
        var deadline: Duration
    }
    package private(set) var closedWith: HCIError?
    /// Completed packets reported for more packets than the handle had in flight.
    package private(set) var unexpectedCompletions = 0

    package init() {}

    package var waitingCount: Int { waiting.count }
    /// Packets sent that the controller has not reported completed, or senders waiting for one.
    package var isBusy: Bool { credits < total || !waiting.isEmpty }
    package var nextDeadline: Duration? { (waiting.map(\.deadline) + flushes.map(\.deadline)).min() }

    /// The controller's buffers, from LE Read Buffer Size (or Read Buffer Size).
    package mutating func configure(total: Int, maximumLength: Int) {
        self.total = total
        self.maximumLength = maximumLength
        credits = total
    }

    /// Asks for one buffer for `handle`: granted now when one is free and nobody waits (no
    /// overtaking), otherwise queued until a buffer comes back or the deadline passes.
    package mutating func acquire(_ token: Token, handle: ConnectionHandle, now: Duration, timeout: Duration) -> Grant? {
        if let closedWith { return Grant(token: token, handle: handle, result: .failure(closedWith)) }
        if waiting.isEmpty, credits > 0 {
            take(handle)
            return Grant(token: token, handle: handle, result: .success(()))
        }
        waiting.append(Request(token: token, handle: handle, askedAt: now, deadline: now + timeout))
        return nil
    }

    /// Asks to hear when every packet sent on `handle` so far has been reported completed: at
    /// once (the returned `Flush`) when none is in flight, else from `endedFlushes` once they
    /// are (later packets do not hold it), or unsent when the connection or controller closes
    /// first or `timeout` passes. A host that ends a link waits for this first, so that its last
    /// PDU (a Pairing Failed, say) reaches the peer.
    package mutating func flush(_ token: Token, handle: ConnectionHandle, now: Duration, timeout: Duration) -> Flush? {
        guard closedWith == nil else { return Flush(token: token, handle: handle, sent: false) }
        guard let count = inFlight[handle] else { return Flush(token: token, handle: handle, sent: true) }
        flushes.append(PendingFlush(token: token, handle: handle, remaining: count, deadline: now + timeout))
        return nil
    }

    package var hasFlushes: Bool { !flushes.isEmpty }

    /// The flushes that ended: their packets reported completed (sent), or the connection or
    /// controller closed, or the deadline passed (not sent).
    package mutating func endedFlushes(now: Duration) -> [Flush] {
        var ended: [Flush] = []
        flushes.removeAll { flush in
            if flush.remaining == 0 {
                ended.append(Flush(token: flush.token, handle: flush.handle, sent: true))
                return true
            }
            guard closedWith != nil || inFlight[flush.handle] == nil || flush.deadline <= now else { return false }
            ended.append(Flush(token: flush.token, handle: flush.handle, sent: false))
            return true
        }
        return ended
    }

    /// Takes a buffer only if one is free now and nobody waits; with `keepingOneFree`, only if
    /// another stays free for everyone else (a buffer held ahead of a trigger).
    package mutating func tryTake(_ handle: ConnectionHandle, keepingOneFree: Bool = false) -> Bool {
        guard closedWith == nil, waiting.isEmpty, credits > (keepingOneFree ? 1 : 0) else { return false }
        take(handle)
        return true
    }

    /// A taken buffer carried nothing (the write failed, or a reservation was given back).
    package mutating func giveBack(_ handle: ConnectionHandle) -> [Grant] {
        guard (inFlight[handle] ?? 0) > 0 else { return [] }
        returnCredits(handle, count: 1)
        return grantWaiting()
    }

    /// Number Of Completed Packets for one handle.
    package mutating func completed(_ handle: ConnectionHandle, count: Int) -> [Grant] {
        let outstanding = inFlight[handle] ?? 0
        if count > outstanding { unexpectedCompletions += count - outstanding }
        for index in flushes.indices where flushes[index].handle == handle {
            flushes[index].remaining = max(0, flushes[index].remaining - count)
        }
        returnCredits(handle, count: count)
        return grantWaiting()
    }

    /// Disconnection Complete: the controller flushed the handle's packets, so their buffers
    /// are free; senders still waiting for that handle fail.
    package mutating func connectionClosed(_ handle: ConnectionHandle) -> [Grant] {
        let outstanding = inFlight.removeValue(forKey: handle) ?? 0
        credits = min(credits + outstanding, total)
        var ended: [Grant] = []
        waiting.removeAll { request in
            guard request.handle == handle else { return false }
            ended.append(Grant(token: request.token, handle: handle, result: .failure(.connectionClosed(handle: handle))))
            return true
        }
        return ended + grantWaiting()
    }

    /// The sender gave up: it leaves the queue.
    package mutating func cancel(_ token: Token) {
        waiting.removeAll { $0.token == token }
    }

    /// Fails every sender whose deadline has passed.
    package mutating func expire(now: Duration) -> [Grant] {
        var ended: [Grant] = []
        let held = inFlight.values.reduce(0, +)
        waiting.removeAll { request in
            guard request.deadline <= now else { return false }
            ended.append(Grant(token: request.token, handle: request.handle, result: .failure(.noACLCredits(
                handle: request.handle, waited: now - request.askedAt, inFlight: held, total: total))))
            return true
        }
        return ended
    }

    /// Every waiting sender fails with `error`; later requests fail at once.
    package mutating func close(_ error: HCIError) -> [Grant] {
        guard closedWith == nil else { return [] }
        closedWith = error
        credits = 0
        defer { waiting = [] }
        return waiting.map { Grant(token: $0.token, handle: $0.handle, result: .failure(error)) }
    }

    private mutating func take(_ handle: ConnectionHandle) {
        credits -= 1
        inFlight[handle, default: 0] += 1
    }

    private mutating func returnCredits(_ handle: ConnectionHandle, count: Int) {
        let outstanding = inFlight[handle] ?? 0
        let returned = min(count, outstanding)
        if returned == outstanding {
            inFlight.removeValue(forKey: handle)
        } else {
            inFlight[handle] = outstanding - returned
        }
        credits = min(credits + returned, total)
    }

    /// Hands free buffers to waiting senders in order.
    private mutating func grantWaiting() -> [Grant] {
        var granted: [Grant] = []
        while credits > 0, !waiting.isEmpty, closedWith == nil {
            let request = waiting.removeFirst()
            take(request.handle)
            granted.append(Grant(token: request.token, handle: request.handle, result: .success(())))
        }
        return granted
    }
}

extension ACLCredits: Sendable where Token: Sendable {}
extension ACLCredits.Grant: Sendable where Token: Sendable {}
extension ACLCredits.Request: Sendable where Token: Sendable {}
extension ACLCredits.Flush: Sendable where Token: Sendable {}
extension ACLCredits.PendingFlush: Sendable where Token: Sendable {}
