import StrobeHCI
import Synchronization

/// An LE credit-based channel on a connection (Core Vol 3, Part A, 10.1): SDUs both ways
/// without ATT's headers, flow controlled by credits. What arrives is `sdus`, an async sequence
/// that gives the peer credits back as the app takes SDUs, so a slow reader throttles the peer
/// instead of losing data; `send` returns once the SDU's last K-frame has gone to the
/// controller, waiting for the peer's credits up to a deadline. A hot path can take SDUs with
/// `receive(_:)` instead: each one lent in place as it completes, with no task in between.
public final class L2CAPChannel: Sendable, CustomStringConvertible {
    /// The PSM it was opened on.
    public let psm: UInt16
    /// This side's channel identifier.
    public let cid: L2CAPChannelID
    /// The largest SDU this side receives, and the largest the peer receives.
    public let mtu: Int
    public let peerMTU: Int
    private let link: L2CAPLink
    private let inbox = Mutex(Inbox())

    private struct Inbox {
        /// SDUs waiting for a reader, with when each was read.
        var sdus: [(bytes: [UInt8], time: HostTime)] = []
        var head = 0
        var reader: CheckedContinuation<[UInt8]?, any Error>?
        /// Set once the channel has ended: nil inside when it was closed in order.
        var ended: L2CAPChannelError??
        var handler: (@Sendable (UnsafeRawBufferPointer, HostTime) -> Void)?
        /// Told once, after the last SDU, why the channel ended.
        var endHandler: (@Sendable (L2CAPChannelError?) -> Void)?
        /// A thread is handing the inbox to `handler`; others leave what comes to it.
        var draining = false

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
        self.peerMTU = peerMTU
        self.link = link
    }

    public var description: String { "L2CAP channel \(cid) on PSM \(l2capHex(psm))" }

    /// Sends one SDU (at most `peerMTU` bytes); returns once its last K-frame is with the
    /// controller. Throws
    /// `L2CAPChannelError` (`timeout` when the peer gave no credits for it in time: it stays
    /// queued and goes out when credits come, so sending it again would send it twice).
    public func send(_ sdu: [UInt8], timeout: Duration = .seconds(30)) async throws {
        try await link.send(sdu, on: self, timeout: timeout)
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

    /// Hands every SDU to `handler` in order, in place of `sdus`, as the link's reader thread
    /// completes it, with the time its last K-frame was read (those received before this call
    /// first, on the caller's thread); then
    /// `ended` once, with why the channel ended (nil: closed in order). The bytes are lent for
    /// the call only, and the peer's credits go back as it returns, so a handler that keeps up
    /// never stalls the peer and one that is slow throttles it. For hot paths: no copy after
    /// reassembly, no task hop. The handler holds the link's reader while it runs: it must not
    /// wait on the link. Throws `alreadyReading` when a task reads `sdus` or a handler is set.
    public func receive(_ handler: @escaping @Sendable (UnsafeRawBufferPointer, HostTime) -> Void,
                        ended: @escaping @Sendable (L2CAPChannelError?) -> Void = { _ in }) throws(L2CAPChannelError) {
        try inbox.withLock { inbox throws(L2CAPChannelError) in
            guard inbox.reader == nil, inbox.handler == nil else { throw .alreadyReading }
            inbox.handler = handler
            inbox.endHandler = ended
        }
        drain()
    }

    public struct SDUs: AsyncSequence, Sendable {
        public typealias Element = [UInt8]
        let channel: L2CAPChannel

        public func makeAsyncIterator() -> Iterator { Iterator(channel: channel) }

        public struct Iterator: AsyncIteratorProtocol {
            let channel: L2CAPChannel
            public mutating func next() async throws -> [UInt8]? { try await channel.next() }
        }
    }

    // MARK: The link

    func deliver(_ sdu: [UInt8], at time: HostTime) {
        let reader = inbox.withLock { inbox -> CheckedContinuation<[UInt8]?, any Error>? in
            if let reader = inbox.reader {
                inbox.reader = nil
                return reader
            }
            inbox.sdus.append((sdu, time))
            return nil
        }
        if let reader {
            reader.resume(returning: sdu)
            link.consumed(1, on: self)
        } else {
            drain()
        }
    }

    /// Hands the inbox to the handler, if there is one, one SDU at a time outside the lock, and
    /// the end after the last; one thread at a time, so that nothing overtakes.
    private func drain() {
        guard let handler = inbox.withLock({ inbox -> (@Sendable (UnsafeRawBufferPointer, HostTime) -> Void)? in
            guard let handler = inbox.handler, !inbox.draining else { return nil }
            inbox.draining = true
            return handler
        }) else { return }
        while true {
            let next = inbox.withLock { inbox -> Drained in
                if let sdu = inbox.pop() { return .sdu(sdu.bytes, sdu.time) }
                inbox.draining = false
                guard let ended = inbox.ended, let endHandler = inbox.endHandler else { return .empty }
                inbox.endHandler = nil
                return .ended(ended, endHandler)
            }
            switch next {
            case .sdu(let sdu, let time):
                sdu.withUnsafeBytes { handler($0, time) }
                link.consumed(1, on: self)
            case .ended(let error, let endHandler):
                endHandler(error)
                return
            case .empty:
                return
            }
        }
    }

    private enum Drained {
        case sdu([UInt8], HostTime)
        case ended(L2CAPChannelError?, @Sendable (L2CAPChannelError?) -> Void)
        case empty
    }

    func ended(_ error: L2CAPChannelError?) {
        let reader = inbox.withLock { inbox -> CheckedContinuation<[UInt8]?, any Error>? in
            guard inbox.ended == nil else { return nil }
            inbox.ended = .some(error)
            defer { inbox.reader = nil }
            return inbox.reader
        }
        if let error { reader?.resume(throwing: error) } else { reader?.resume(returning: nil) }
        drain()
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
