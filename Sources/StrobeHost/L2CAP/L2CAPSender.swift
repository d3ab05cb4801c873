import StrobeHCI
import StrobeBase
import Synchronization

/// The sending side of one LE-U link, for every channel on it (ATT, LE signalling, SMP): whole
/// PDUs in the order they were queued, each cut by the `L2CAPFragmenter` to the controller's LE
/// ACL length, every fragment written on a controller buffer it waited for (an
/// `ACLBufferReservation`). One task sends, on the host's loop (its thread, when it has one), so
/// a PDU's fragments go out back to back and never wait for the app's pool.
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
    private let jobs: AsyncStream<Job>.Continuation
    private let claim = L2CAPWriteClaim()
    /// The first failure of the link, shared with the sending task.
    private let failure = FirstFailure()

    private struct Job: Sendable {
        var payload: [UInt8]
        var channel: L2CAPChannelID
        var completion: (@Sendable (Result<Void, any Error>) -> Void)?
    }

    /// `maximumSDU` bounds a PDU's payload: the largest ATT MTU this host uses (517) plus room.
    init(controller: HCIController, fragmenter: L2CAPFragmenter, maximumSDU: Int = 1024,
         onFailure: @escaping @Sendable (HCIError) -> Void) {
        self.controller = controller
        self.fragmenter = fragmenter
        handle = fragmenter.connectionHandle
        maximumPayload = maximumSDU
        let (stream, continuation) = AsyncStream.makeStream(of: Job.self)
        jobs = continuation
        // On the host's loop: a send never waits for a thread of the app's pool.
        Task(executorPreference: controller.loop.executor) { [controller, fragmenter, claim, failure] in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: fragmenter.packetCapacity(h4Indicator: true), alignment: 8)
            defer { buffer.deallocate() }
            for await job in stream {
                if let earlier = failure.error {
                    job.completion?(.failure(earlier))
                    continue
                }
                do {
                    try await Self.write(job, controller: controller, fragmenter: fragmenter, claim: claim, buffer: buffer)
                    job.completion?(.success(()))
                } catch {
                    job.completion?(.failure(error))
                    if let error = error as? HCIError, case .noACLCredits = error, failure.keep(error) { onFailure(error) }
                }
            }
        }
    }

    deinit {
        jobs.finish()
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
        if case .terminated = jobs.yield(Job(payload: payload, channel: channel, completion: completion)) {
            completion?(.failure(failure.error ?? HCIError.connectionClosed(handle: handle)))
        }
    }

    private static func write(
        _ job: Job, controller: HCIController, fragmenter: L2CAPFragmenter, claim: L2CAPWriteClaim,
        buffer: UnsafeMutableRawBufferPointer
    ) async throws {
        let count = fragmenter.fragmentCount(payloadLength: job.payload.count)
        // A prepared PDU must not land between two fragments of this one; it holds the claim
        // for a single write() at most, and between tries the loop runs its other work.
        if count > 1 {
            while !claim.tryClaim() { await Task.yield() }
        }
        defer { if count > 1 { claim.release() } }
        for index in 0..<count {
            let reservation = try await controller.reserveACLBuffer(for: fragmenter.connectionHandle)
            let written = try job.payload.withUnsafeBytes { payload throws(L2CAPError) in
                try fragmenter.writeFragment(index, channel: job.channel, payload: payload, into: buffer, h4Indicator: true)
            }
            try reservation.send(UnsafeRawBufferPointer(rebasing: buffer[..<written]))
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

    /// The link is gone: queued PDUs fail, new ones are refused.
    func close() {
        jobs.finish()
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
