import StrobeHCI
import StrobeBase
import Synchronization

/// An LE credit-based channel on a connection (Core Vol 3, Part A, 10.1): SDUs both ways
/// without ATT's headers, flow controlled by credits. What arrives is `sdus`, an async sequence
/// that gives the peer credits back as the app takes SDUs, so a slow reader throttles the peer
/// instead of losing data; `send` returns once the SDU's last K-frame has gone to the
/// controller, waiting for the peer's credits up to a deadline. A hot path can take SDUs with
/// `receive(_:ended:)` instead: each one lent in place as it completes, with no task in between.
public final class L2CAPChannel: Sendable, CustomStringConvertible {
    /// The PSM it was opened on.
    public let psm: UInt16
    /// This side's channel identifier.
    public let cid: L2CAPChannelID
    /// The largest SDU this side receives.
    public let mtu: Int
    /// The largest SDU the peer receives; an enhanced channel's peer may raise it.
    public var peerMTU: Int { peerMTUValue.load(ordering: .relaxed) }
    private let peerMTUValue: Atomic<Int>
    private let link: L2CAPLink
    private let inbox = Lock(Inbox())
    /// Held over each call into the receive handler: one at a time, in order.
    private let handlerTurn = Lock(())

    private struct Inbox {
        /// SDUs waiting for a reader, with when each was read.
        var sdus: [(bytes: [UInt8], time: HostTime)] = []
        var head = 0
        var reader: CheckedContinuation<[UInt8]?, any Error>?
        /// Set once the channel has ended: nil inside when it was closed in order.
        var ended: L2CAPChannelError??
        var handler: (@Sendable (UnsafeRawBufferPointer, HostTime) -> Void)?
        /// Told once, after the last call into `handler`, why the channel ended.
        var endHandler: (@Sendable (L2CAPChannelError?) -> Void)?
        /// Calls into `handler` decided and not yet returned: the end waits for them.
        var handling = 0

        /// The end handler, once the channel has ended and no call into the handler is under
        /// way; both handlers are let go then (what they hold is released).
        mutating func dueEnd() -> (@Sendable (L2CAPChannelError?) -> Void, L2CAPChannelError?)? {
            guard handling == 0, let ended, let endHandler else { return nil }
            self.endHandler = nil
            handler = nil
            return (endHandler, ended)
        }

        mutating func pop() -> (bytes: [UInt8], time: HostTime)? {
            guard head < sdus.count else { return nil }
            let sdu = sdus[head]
            sdus[head].bytes = []
            head += 1
            // What was read goes: a reader that keeps a few SDUs behind never empties the inbox.
            if head == sdus.count {
                sdus.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= sdus.count {
                sdus.removeFirst(head)
                head = 0
            }
            return sdu
        }
    }

    init(psm: UInt16, cid: L2CAPChannelID, mtu: Int, peerMTU: Int, link: L2CAPLink) {
        self.psm = psm
        self.cid = cid
        self.mtu = mtu
        peerMTUValue = Atomic(peerMTU)
        self.link = link
    }

    /// Names the channel by its local CID and its PSM in hex.
    public var description: String { "L2CAP channel \(cid) on PSM \(l2capHex(psm))" }

    /// The peer's Credit Based Reconfigure Request was accepted.
    func peerReconfigured(mtu: Int) {
        peerMTUValue.store(mtu, ordering: .relaxed)
    }

    /// Sends one SDU (at most `peerMTU` bytes); returns once its last K-frame is with the
    /// controller. Throws `StrobeError.l2cap` (`timeout` when the peer gave no credits for it in
    /// time: it stays queued and goes out when credits come, so sending it again would send it
    /// twice).
    public func send(_ sdu: [UInt8], timeout: Duration = .seconds(30)) async throws(StrobeError) {
        try await filingErrors {
            try await link.send(sdu, on: self, timeout: timeout)
        }
    }

    /// Disconnects the channel; what `sdus` had received stays readable.
    public func close() {
        link.closeChannel(self)
    }

    /// Why the channel ended: nil while it is open or when it was closed in order.
    public var closeReason: L2CAPChannelError? { inbox.withLock { $0.ended ?? nil } }

    /// Whether the channel has ended.
    public var isClosed: Bool { inbox.withLock { $0.ended != nil } }

    /// The SDUs from the peer, in order; it ends when the channel ends, throwing its
    /// `L2CAPChannelError` when the channel did not end in order. One reader at a time: a
    /// second gets `alreadyReading`.
    public var sdus: SDUs { SDUs(channel: self) }

    /// Hands every SDU to `handler` in order, in place of `sdus`, with the time its last K-frame
    /// was read: those already received on the calling thread before this returns, the rest on
    /// the link's reader thread as each completes; then `ended` once, after the last call, with
    /// why the channel ended (nil: closed in order). The bytes are lent for the call only, and
    /// the peer's credits go back as it returns, so a handler that keeps up never stalls the peer
    /// and a slow one throttles it. For hot paths: no copy after reassembly, no task hop. The
    /// handler holds up the link's reader while it runs; it may close the channel. Throws
    /// `alreadyReading` when a task reads `sdus` or a handler is set.
    public func receive(_ handler: @escaping @Sendable (UnsafeRawBufferPointer, HostTime) -> Void,
                        ended: @escaping @Sendable (L2CAPChannelError?) -> Void = { _ in }) throws(L2CAPChannelError) {
        // Checked before the turn too: a handler calling this holds the turn already.
        guard inbox.withLock({ $0.reader == nil && $0.handler == nil }) else { throw .alreadyReading }
        // The turn is taken before the handler is set, so what the reader thread delivers from
        // then on waits for what was received before.
        let handled = try handlerTurn.withLock { _ throws(L2CAPChannelError) -> Int in
            let backlog = try inbox.withLock { inbox throws(L2CAPChannelError) -> [(bytes: [UInt8], time: HostTime)] in
                guard inbox.reader == nil, inbox.handler == nil else { throw .alreadyReading }
                inbox.handler = handler
                inbox.endHandler = ended
                inbox.handling += 1
                var backlog: [(bytes: [UInt8], time: HostTime)] = []
                while let sdu = inbox.pop() { backlog.append(sdu) }
                return backlog
            }
            for sdu in backlog { sdu.bytes.withUnsafeBytes { handler($0, sdu.time) } }
            return backlog.count
        }
        handlerReturned()
        if handled > 0 { link.consumed(handled, on: self) }
    }

    /// The SDUs the peer sends, in order, as an async sequence (see `sdus`).
    public struct SDUs: AsyncSequence, Sendable {
        /// One whole SDU, reassembled from its K-frames.
        public typealias Element = [UInt8]
        let channel: L2CAPChannel

        /// An iterator over the channel's SDUs; one reader at a time.
        public func makeAsyncIterator() -> Iterator { Iterator(channel: channel) }

        /// Takes the channel's SDUs one at a time; each one taken gives the peer a credit back.
        public struct Iterator: AsyncIteratorProtocol {
            let channel: L2CAPChannel
            /// The next SDU, waiting until one arrives; nil once the channel was closed in order. Throws the
            /// channel's `L2CAPChannelError` when it ended otherwise, `.alreadyReading` when another task reads
            /// or a `receive` handler is set, and `CancellationError` when the task is cancelled.
            public mutating func next() async throws -> [UInt8]? { try await channel.next() }
        }
    }

    // MARK: The link

    /// Reader thread: a whole SDU.
    func deliver(_ sdu: [UInt8], at time: HostTime) {
        enum Route {
            case reader(CheckedContinuation<[UInt8]?, any Error>)
            case handler(@Sendable (UnsafeRawBufferPointer, HostTime) -> Void)
            case kept
        }
        let route = inbox.withLock { inbox -> Route in
            // Completed as the app closed the channel: nothing is received after the end.
            if inbox.ended != nil { return .kept }
            if let handler = inbox.handler {
                inbox.handling += 1
                return .handler(handler)
            }
            if let reader = inbox.reader {
                inbox.reader = nil
                return .reader(reader)
            }
            inbox.sdus.append((sdu, time))
            return .kept
        }
        switch route {
        case .reader(let reader):
            reader.resume(returning: sdu)
            link.consumed(1, on: self)
        case .handler(let handler):
            handlerTurn.withLock { _ in sdu.withUnsafeBytes { handler($0, time) } }
            handlerReturned()
            link.consumed(1, on: self)
        case .kept:
            break
        }
    }

    /// A call into the handler returned: the end is told now if it came meanwhile.
    private func handlerReturned() {
        let due = inbox.withLock { inbox in
            inbox.handling -= 1
            return inbox.dueEnd()
        }
        if let (endHandler, error) = due { endHandler(error) }
    }

    func ended(_ error: L2CAPChannelError?) {
        let (reader, due) = inbox.withLock { inbox -> (CheckedContinuation<[UInt8]?, any Error>?, (@Sendable (L2CAPChannelError?) -> Void, L2CAPChannelError?)?) in
            guard inbox.ended == nil else { return (nil, nil) }
            inbox.ended = .some(error)
            defer { inbox.reader = nil }
            return (inbox.reader, inbox.dueEnd())
        }
        if let error { reader?.resume(throwing: error) } else { reader?.resume(returning: nil) }
        if let (endHandler, error) = due { endHandler(error) }
    }

    private func next() async throws -> [UInt8]? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                let outcome = inbox.withLock { inbox -> Result<[UInt8]?, any Error>? in
                    guard inbox.reader == nil, inbox.handler == nil else { return .failure(L2CAPChannelError.alreadyReading) }
                    if let sdu = inbox.pop() { return .success(sdu.bytes) }
                    if let ended = inbox.ended {
                        if let error = ended { return .failure(error) }
                        return .success(nil)
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    inbox.reader = continuation
                    return nil
                }
                guard let outcome else { return }
                if case .success(.some) = outcome { link.consumed(1, on: self) }
                continuation.resume(with: outcome)
            }
        } onCancel: {
            let reader = inbox.withLock { inbox in
                defer { inbox.reader = nil }
                return inbox.reader
            }
            reader?.resume(throwing: CancellationError())
        }
    }
}
