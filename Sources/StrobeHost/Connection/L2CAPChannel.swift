import StrobeHCI
import Synchronization

/// An LE credit-based channel on a connection (Core Vol 3, Part A, 10.1): SDUs both ways
/// without ATT's headers, flow controlled by credits. What arrives is `sdus`, an async sequence
/// that gives the peer credits back as the app takes SDUs, so a slow reader throttles the peer
/// instead of losing data; `send` returns once the SDU's last K-frame has gone to the
/// controller, waiting for the peer's credits up to a deadline.
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
        var sdus: [[UInt8]] = []
        var head = 0
        var reader: CheckedContinuation<[UInt8]?, any Error>?
        /// Set once the channel has ended: nil inside when it was closed in order.
        var ended: L2CAPChannelError??
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

    func deliver(_ sdu: [UInt8]) {
        let reader = inbox.withLock { inbox -> CheckedContinuation<[UInt8]?, any Error>? in
            if let reader = inbox.reader {
                inbox.reader = nil
                return reader
            }
            inbox.sdus.append(sdu)
            return nil
        }
        if let reader {
            reader.resume(returning: sdu)
            link.consumed(1, on: self)
        }
    }

    func ended(_ error: L2CAPChannelError?) {
        let reader = inbox.withLock { inbox -> CheckedContinuation<[UInt8]?, any Error>? in
            guard inbox.ended == nil else { return nil }
            inbox.ended = .some(error)
            defer { inbox.reader = nil }
            return inbox.reader
        }
        if let error { reader?.resume(throwing: error) } else { reader?.resume(returning: nil) }
    }

    private func next() async throws -> [UInt8]? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                let outcome = inbox.withLock { inbox -> Result<[UInt8]?, any Error>? in
                    guard inbox.reader == nil else { return .failure(L2CAPChannelError.alreadyReading) }
                    if inbox.head < inbox.sdus.count {
                        let sdu = inbox.sdus[inbox.head]
                        inbox.sdus[inbox.head] = []
                        inbox.head += 1
                        // What was read goes: a reader that keeps a few SDUs behind never empties the inbox.
                        if inbox.head == inbox.sdus.count {
                            inbox.sdus.removeAll(keepingCapacity: true)
                            inbox.head = 0
                        } else if inbox.head >= 64, inbox.head * 2 >= inbox.sdus.count {
                            inbox.sdus.removeFirst(inbox.head)
                            inbox.head = 0
                        }
                        return .success(sdu)
                    }
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
