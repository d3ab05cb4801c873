import StrobeHCI
import StrobeBase
import Synchronization

/// The sending side of one LE-U link, for every channel on it (ATT, LE signalling, SMP): whole
/// PDUs in the order they were queued, each cut by the `L2CAPFragmenter` to the controller's LE
/// ACL length, every fragment written on a controller buffer (an `ACLBufferReservation`). The
/// host's loop sends: a PDU queued from any thread goes out from the loop's thread, so sends
/// never wait for a thread of the app's pool, and a PDU's fragments go out back to back.
///
/// A PDU prepared ahead of a trigger (`prepare`) goes out from whichever thread fires it,
/// through the same write claim the sender holds while a PDU of several fragments is part-way
/// out: whichever side has it, the other's PDU cannot land between two fragments.
///
/// When the controller stops returning buffers, the link fails: the first failure is kept and
/// handed to `onFailure`, and every later send fails with it.
final class L2CAPSender: ATTChannel, Sendable {
    let handle: ConnectionHandle
    let maximumPayload: Int
    private let controller: HCIController
    private let fragmenter: L2CAPFragmenter
    private let loop: HostLoop
    private let claim = L2CAPWriteClaim()
    /// The first failure of the link.
    private let failure = FirstFailure()
    private let onFailure: @Sendable (HCIError) -> Void
    private let queue = Lock(Queue())
    /// Where each fragment is encoded: only `pump` and `bufferCame` touch it, on the loop, one
    /// at a time (`Queue.pumping`).
    nonisolated(unsafe) private let buffer: UnsafeMutableRawBufferPointer

    private struct Job: Sendable {
        var payload: [UInt8]
        var channel: L2CAPChannelID
        var completion: (@Sendable (Result<Void, any Error>) -> Void)?
    }

    private struct Queue {
        var jobs: [Job] = []
        var head = 0
        /// Fragments of the first job already written.
        var sentFragments = 0
        /// The sender holds the write claim for the first job (several fragments).
        var holdsClaim = false
        /// A pump is posted, running or waiting for a controller buffer: only one at a time.
        var pumping = false
        var closed = false

        var current: (job: Job, sent: Int)? { head < jobs.count ? (jobs[head], sentFragments) : nil }
    }

    /// `maximumSDU` bounds a PDU's payload: the largest ATT MTU this host uses (517) plus room.
    init(controller: HCIController, fragmenter: L2CAPFragmenter, maximumSDU: Int = 1024,
         onFailure: @escaping @Sendable (HCIError) -> Void) {
        self.controller = controller
        self.fragmenter = fragmenter
        self.onFailure = onFailure
        loop = controller.loop
        handle = fragmenter.connectionHandle
        maximumPayload = maximumSDU
        buffer = .allocate(byteCount: fragmenter.packetCapacity(h4Indicator: true), alignment: 8)
    }

    deinit {
        buffer.deallocate()
    }

    // MARK: Sending

    func send(_ pdu: [UInt8]) async throws {
        try await send(pdu, on: .att)
    }

    func post(_ pdu: [UInt8], completion: (@Sendable (Result<Void, any Error>) -> Void)?) {
        post(pdu, on: .att, completion: completion)
    }

    /// Returns once every fragment is with the controller, or throws when the link is gone.
    func send(_ payload: [UInt8], on channel: L2CAPChannelID) async throws {
        let done = Waiter<Void>()
        post(payload, on: channel) { done.resolve($0) }
        try await done.wait()
    }

    /// Queues a PDU behind everything queued before it, without waiting.
    func post(_ payload: [UInt8], on channel: L2CAPChannelID, completion: (@Sendable (Result<Void, any Error>) -> Void)? = nil) {
        let start = queue.withLock { q -> Bool? in
            if q.closed { return nil }
            q.jobs.append(Job(payload: payload, channel: channel, completion: completion))
            if q.pumping { return false }
            q.pumping = true
            return true
        }
        guard let start else {
            completion?(.failure(failure.error ?? HCIError.connectionClosed(handle: handle)))
            return
        }
        if start { loop.post { self.pump() } }
    }

    /// On the loop: writes what is queued, in order, each fragment on a controller buffer taken
    /// at once when one is free; else it asks for one and returns, and `bufferCame` goes on.
    private func pump() {
        // The pump ends with the queue empty, in the same lock as the check: a PDU queued just
        // after posts the next pump.
        while let (job, sent, closed) = queue.withLock({ q -> (Job, Int, Bool)? in
            guard let current = q.current else {
                q.pumping = false
                return nil
            }
            return (current.job, current.sent, q.closed)
        }) {
            if let earlier = failure.error {
                complete(.failure(earlier))
                continue
            }
            // The handle is gone: its credits came back, and a new link may get its number.
            if closed {
                complete(.failure(HCIError.connectionClosed(handle: handle)))
                continue
            }
            let count = fragmenter.fragmentCount(payloadLength: job.payload.count)
            // A prepared PDU must not land between two fragments of this one; it holds the claim
            // for a single write() at most, so the loop comes back for it at once.
            if count > 1, !queue.withLock({ $0.holdsClaim }) {
                guard claim.tryClaim() else {
                    loop.post { self.pump() }
                    return
                }
                queue.withLock { $0.holdsClaim = true }
            }
            guard let reservation = controller.tryReserveACLBuffer(for: handle) else {
                controller.requestACLBuffer(for: handle).whenResolved { result in
                    self.loop.post { self.bufferCame(result) }
                }
                return
            }
            write(job, fragment: sent, of: count, on: reservation)
        }
    }

    /// On the loop: the controller buffer asked for came (or why none will).
    private func bufferCame(_ result: Result<Void, any Error>) {
        switch result {
        case .success:
            let reservation = controller.grantedACLBuffer(for: handle)
            let (current, closed) = queue.withLock { ($0.current, $0.closed) }
            if let (job, sent) = current, !closed {
                write(job, fragment: sent, of: fragmenter.fragmentCount(payloadLength: job.payload.count), on: reservation)
            } else {
                reservation.release()
            }
        case .failure(let error):
            complete(.failure(error))
        }
        pump()
    }

    /// Writes one fragment of the first job; the job completes after its last fragment, or at
    /// once when the write fails.
    private func write(_ job: Job, fragment index: Int, of count: Int, on reservation: consuming ACLBufferReservation) {
        let written: Int
        do {
            written = try job.payload.withUnsafeBytes { payload throws(L2CAPError) in
                try fragmenter.writeFragment(index, channel: job.channel, payload: payload, into: buffer, h4Indicator: true)
            }
        } catch {
            reservation.release()
            complete(.failure(error))
            return
        }
        do throws(HCIError) {
            try reservation.send(UnsafeRawBufferPointer(rebasing: buffer[..<written]))
        } catch {
            complete(.failure(error))
            return
        }
        if index + 1 == count {
            complete(.success(()))
        } else {
            queue.withLock { $0.sentFragments += 1 }
        }
    }

    /// The first job is done: it leaves the queue, the claim is given back, and its caller hears.
    private func complete(_ result: Result<Void, any Error>) {
        let (job, releaseClaim) = queue.withLock { q -> (Job?, Bool) in
            guard q.head < q.jobs.count else { return (nil, false) }
            let job = q.jobs[q.head]
            q.head += 1
            if q.head == q.jobs.count {
                q.jobs.removeAll(keepingCapacity: true)
                q.head = 0
            } else if q.head >= 64, q.head * 2 >= q.jobs.count {
                // Under steady traffic the queue never empties: drop what was sent.
                q.jobs.removeFirst(q.head)
                q.head = 0
            }
            q.sentFragments = 0
            defer { q.holdsClaim = false }
            return (job, q.holdsClaim)
        }
        if releaseClaim { claim.release() }
        job?.completion?(result)
        if case .failure(let error) = result, let error = error as? HCIError, case .noACLCredits = error, failure.keep(error) {
            onFailure(error)
        }
    }

    /// A PDU that fits one ACL packet, encoded now, with a controller buffer held for it (never
    /// the last free one). `nil` when it needs more than one packet or no buffer is free.
    func prepare(_ pdu: [UInt8]) -> (any ATTPreparedPDU)? {
        prepare(pdu, on: .att)
    }

    func prepare(_ payload: [UInt8], on channel: L2CAPChannelID) -> L2CAPPreparedPDU? {
        guard failure.error == nil, fragmenter.fragmentCount(payloadLength: payload.count) == 1 else { return nil }
        return L2CAPPreparedPDU(payload, on: channel, fragmenter: fragmenter, controller: controller, claim: claim)
    }

    /// The link is gone: new PDUs are refused, and those still queued fail with
    /// `connectionClosed` (none reaches the handle, which a new link may be given).
    func close() {
        queue.withLock { $0.closed = true }
    }
}

/// The first error that made a link unusable; later ones are not kept.
final class FirstFailure: Sendable {
    private let kept = Lock<(any Error)?>(nil)

    var error: (any Error)? { kept.withLock { $0 } }

    /// Keeps `error` if none was kept yet; returns whether it did.
    func keep(_ error: any Error) -> Bool {
        kept.withLock { kept in
            guard kept == nil else { return false }
            kept = error
            return true
        }
    }
}

/// Who is writing a PDU on one link right now, when that must not be interrupted: the sender
/// during a PDU of several fragments, or a prepared PDU during its single write. One
/// compare-and-exchange; the prepared side never waits for it.
final class L2CAPWriteClaim: Sendable {
    private let claimed = Atomic<Bool>(false)

    func tryClaim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
    }

    func release() {
        claimed.store(false, ordering: .releasing)
    }

    /// Whether someone writes right now (a read for `ATTPreparedPDU.warm()`).
    var isClaimed: Bool { claimed.load(ordering: .relaxed) }
}

/// One L2CAP PDU encoded whole, H4 type byte first, into a buffer of its own, with the
/// controller buffer it will use held as an `ACLBufferReservation`.
///
/// `@unchecked Sendable`: the bytes are written once, in `init`, and only read afterwards; the
/// reservation is taken by exactly one of `send` or `discard`, decided by `taken`.
final class L2CAPPreparedPDU: ATTPreparedPDU, @unchecked Sendable {
    private let bytes: UnsafeMutableRawBufferPointer
    private let length: Int
    private let claim: L2CAPWriteClaim
    private let taken = Atomic<Bool>(false)
    private var reservation: ACLBufferReservation?

    init?(_ payload: [UInt8], on channel: L2CAPChannelID, fragmenter: L2CAPFragmenter, controller: HCIController,
          claim: L2CAPWriteClaim) {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: fragmenter.packetCapacity(h4Indicator: true), alignment: 8)
        let written = payload.withUnsafeBytes { payload in
            try? fragmenter.writeFragment(0, channel: channel, payload: payload, into: bytes, h4Indicator: true)
        }
        guard let written, let reservation = controller.tryReserveACLBuffer(for: fragmenter.connectionHandle, keepingOneFree: true) else {
            bytes.deallocate()
            return nil
        }
        self.bytes = bytes
        length = written
        self.claim = claim
        self.reservation = .some(reservation)
    }

    deinit {
        bytes.deallocate()
    }

    func send(committing commit: () -> Bool) -> ATTPreparedSendResult {
        guard claim.tryClaim() else { return .linkBusy }
        defer { claim.release() }
        guard commit() else { return .declined }
        guard !taken.exchange(true, ordering: .acquiringAndReleasing), let reservation = reservation.take() else { return .failed }
        do {
            try reservation.send(UnsafeRawBufferPointer(rebasing: bytes[..<length]))
            return .sent
        } catch {
            return .failed
        }
    }

    func warm() -> UInt {
        // Not the reservation: a plain var that `send` or `discard` takes on another thread.
        let first = bytes.load(fromByteOffset: 0, as: UInt8.self)
        let last = bytes.load(fromByteOffset: length - 1, as: UInt8.self)
        return (claim.isClaimed ? 1 : 0) &+ (taken.load(ordering: .relaxed) ? 2 : 0) &+ UInt(first) &+ UInt(last)
    }

    func discard() {
        guard !taken.exchange(true, ordering: .acquiringAndReleasing) else { return }
        reservation.take()?.release()
    }
}
