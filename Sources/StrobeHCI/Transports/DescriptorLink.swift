import StrobeBase
import Synchronization
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// The machinery every descriptor-backed transport shares: one reader thread that reads into a
/// fixed buffer, deframes H4 in place and hands packets to the sink; serialised whole-packet
/// writes; and a close that wakes the reader, joins it and closes the descriptor.
///
/// Exactly one `transportDidClose` follows each successful `start`: the reader calls it as its
/// last act, so a `close()` from another thread returns only after the sink has heard it.
final class DescriptorLink: Sendable {
    /// How the reader, blocked in the kernel, is woken when the host closes.
    enum Wakeup: Sendable {
        /// `shutdown(SHUT_RDWR)`: a blocked read on a connected socket returns 0.
        case shutdown
        /// The reader polls the descriptor beside a wake pipe; the host writes the pipe.
        /// For ttys and sockets without shutdown (the kernel's HCI socket).
        case wakePipe
    }

    /// How packets are written.
    enum WriteCall: Sendable {
        /// `send(MSG_NOSIGNAL)`: a vanished peer gives EPIPE instead of killing the process.
        case send
        /// `write()`, for ttys and the kernel's HCI socket.
        case write
    }

    /// One read's worth: at least two of the largest H4 packets, and a typical burst of
    /// notifications in one system call.
    static let readBufferSize = 64 * 1024

    let name: String
    let fd: Int32
    /// The wake pipe's ends, or -1 without one.
    private let wakeReadFD: Int32
    private let wakeWriteFD: Int32
    private let wakeup: Wakeup
    private let writeCall: WriteCall
    private let limits: H4Deframer.Limits
    /// Whether `read()` returning EIO means the peer went away (a tty whose far end hung up).
    private let eioMeansClosed: Bool
    /// Whether the reader sets a receive low-water mark from what its sink says will follow
    /// (`ReceiveLowWaterMark`; TCP sockets).
    private let followsLowWater: Bool
    /// The reader's hold after a read that brought ACL data (stream transports; off by default).
    private let readCoalescing: ReadCoalescing

    /// Set once by `close()`; read by the reader at each read and each packet. Release/acquire
    /// so the reader that sees it also sees that the host, not the peer, ended the link.
    private let closing = Atomic<Bool>(false)
    private let control = Lock(Control())
    /// Held for each whole-packet write, and while the descriptors are closed, so that a write
    /// never reaches a descriptor number the process has reused.
    private let writer = Lock(WriterState.notStarted)
    /// Each `write()` is one whole packet (the kernel's HCI socket): writers need no lock, only
    /// `writeGate` and `writersInside` keep them off a closed descriptor.
    private let packetPerWrite: Bool
    /// Whether lock-free writers may write: not yet, yes, no longer.
    private let writeGate = Atomic<UInt8>(GateState.notStarted.rawValue)
    private let writersInside = Atomic<Int>(0)

    private enum GateState: UInt8 { case notStarted, open, closed }

    private enum Phase { case idle, running, closed }
    private enum WriterState { case notStarted, open, closed }

    private struct Control {
        var phase = Phase.idle
        var sink: (any HCIPacketSink)?
        var thread: pthread_t?
        /// Joined or detached: nothing more to do for the thread.
        var threadReleased = false
        /// `close()` ran on the reader itself (from inside the sink): the reader cleans up.
        var closeFromReader = false
    }

    /// Takes ownership of `fd`, which must be blocking.
    init(
        fileDescriptor fd: Int32, name: String, wakeup: Wakeup, writeCall: WriteCall,
        eioMeansClosed: Bool, limits: H4Deframer.Limits, packetPerWrite: Bool = false,
        followsLowWater: Bool = false, readCoalescing: ReadCoalescing = .off
    ) throws(TransportError) {
        var wakeEnds: (Int32, Int32) = (-1, -1)
        if wakeup == .wakePipe {
            do {
                let ends = try FileDescriptor.pipe(options: [.closeOnExec])
                wakeEnds = (ends.readEnd.rawValue, ends.writeEnd.rawValue)
            } catch {
                _ = Glibc.close(fd)
                throw .systemCall(call: "pipe2", errno: error.rawValue)
            }
        }
        self.fd = fd
        (wakeReadFD, wakeWriteFD) = wakeEnds
        self.name = name
        self.wakeup = wakeup
        self.writeCall = writeCall
        self.eioMeansClosed = eioMeansClosed
        self.limits = limits
        self.packetPerWrite = packetPerWrite
        self.followsLowWater = followsLowWater
        self.readCoalescing = readCoalescing
    }

    deinit {
        // The reader holds a reference while it runs, so here it has finished (or never ran).
        let thread = control.withLock { c -> pthread_t? in
            guard !c.threadReleased, let thread = c.thread else { return nil }
            c.threadReleased = true
            return thread
        }
        if let thread { pthread_detach(thread) }
        closeDescriptors()
    }

    // MARK: start

    func start(_ sink: any HCIPacketSink) throws(TransportError) {
        try control.withLock { c throws(TransportError) in
            guard c.phase == .idle else { throw .notOpen }
            c.sink = sink
            writer.withLock { $0 = .open }
            writeGate.store(GateState.open.rawValue, ordering: .sequentiallyConsistent)
            // The lock is held until the handle is stored; the reader takes it first thing, so
            // it never runs without its handle on record.
            let context = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            let rc = pthread_create(&thread, nil, { context in
                guard let context else { return nil }
                Unmanaged<DescriptorLink>.fromOpaque(context).takeRetainedValue().runReader()
                return nil
            }, context)
            guard rc == 0 else {
                Unmanaged<DescriptorLink>.fromOpaque(context).release()
                c.sink = nil
                writer.withLock { $0 = .notStarted }
                writeGate.store(GateState.notStarted.rawValue, ordering: .sequentiallyConsistent)
                throw .systemCall(call: "pthread_create", errno: rc)
            }
            c.thread = thread
            c.phase = .running
        }
    }

    // MARK: reader

    private func runReader() {
        guard let sink = control.withLock({ $0.sink }) else { return }
        sink.readerScheduling.applyToCurrentThread()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readBufferSize, alignment: 16)
        var deframer = H4Deframer(limits: limits)
        let error = readLoop(buffer, &deframer, sink)
        buffer.deallocate()

        // Whoever set `closing` first decides: the host (nil) or what the reader met.
        let reason = closing.load(ordering: .acquiring) ? nil : error
        sink.transportDidClose(reason)

        let cleanUpHere = control.withLock { c -> Bool in
            c.sink = nil
            guard c.closeFromReader, !c.threadReleased else { return false }
            c.threadReleased = true
            return true
        }
        if cleanUpHere {
            closeDescriptors()
            pthread_detach(pthread_self())
        }
    }

    /// Reads until the host closes (nil) or the link fails (why).
    private func readLoop(
        _ buffer: UnsafeMutableRawBufferPointer, _ deframer: inout H4Deframer, _ sink: any HCIPacketSink
    ) -> TransportError? {
        var pollSet = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0),
        ]
        let pacingSink = sink as? any HCIReceiveLowWater
        let lowWaterSink = followsLowWater ? pacingSink : nil
        var lowWater = ReceiveLowWaterMark(fd: fd, readBufferSize: buffer.count, largestFragment: limits.maximumACLPayload)
        let coalesces = !readCoalescing.isOff
        var holdBeforeRead = false
        while true {
            if holdBeforeRead {
                holdBeforeRead = false
                hold(microseconds: readCoalescing.microseconds)
            }
            if closing.load(ordering: .acquiring) { return nil }
            if wakeup == .wakePipe {
                do throws(Errno) {
                    _ = try retryingOnInterrupt { pollSet.withUnsafeMutableBufferPointer { poll($0.baseAddress, 2, -1) } }
                } catch {
                    return .systemCall(call: "poll", errno: error.rawValue)
                }
                if pollSet[1].revents != 0 { return nil }
                if pollSet[0].revents & Int16(POLLNVAL) != 0 { return .systemCall(call: "poll", errno: EBADF) }
            }
            let count: Int
            do throws(Errno) {
                count = try retryingOnInterrupt { read(fd, buffer.baseAddress, buffer.count) }
            } catch {
                let code = error.rawValue
                if error == .resourceTemporarilyUnavailable {
                    // The low-water mark's bound passed with nothing read.
                    if lowWaterSink != nil { lowWater.readTimedOut() }
                    continue
                }
                if closing.load(ordering: .acquiring) { return nil }
                if code == ECONNRESET || code == EPIPE || (code == EIO && eioMeansClosed) {
                    return .closedByPeer
                }
                return .systemCall(call: "read", errno: code)
            }
            if count == 0 {
                if closing.load(ordering: .acquiring) { return nil }
                do { try deframer.finish() } catch { return error }
                return .closedByPeer
            }
            let time = HostTime.now()
            var broughtACL = false
            do {
                try deframer.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { type, payload in
                    if type == .acl { broughtACL = true }
                    // A close from inside the sink stops delivery at once, mid-chunk.
                    if !closing.load(ordering: .relaxed) {
                        sink.transportDidReceive(type, payload: payload, at: time)
                    }
                }
            } catch {
                return error
            }
            if !closing.load(ordering: .relaxed) {
                sink.transportDidFinishBatch()
                if let lowWaterSink {
                    lowWater.follow(owedData: lowWaterSink.aclBytesCertainToFollow(), held: deframer.bytesHeld)
                }
                holdBeforeRead = coalesces && broughtACL && (pacingSink?.readMayHold() ?? true)
            }
        }
    }

    /// Sleeps out the read coalescing hold, through signals. A close from another thread during
    /// it waits for its end (at most `ReadCoalescing.maximumMicroseconds`) and is seen at the read
    /// that follows: a shut-down socket, or the wake pipe.
    private func hold(microseconds: Int) {
        var rest = timespec(tv_sec: microseconds / 1_000_000, tv_nsec: (microseconds % 1_000_000) * 1000)
        while true {
            var request = rest
            guard clock_nanosleep(CLOCK_MONOTONIC, 0, &request, &rest) == EINTR else { return }
        }
    }

    // MARK: send

    func send(_ packet: UnsafeRawBufferPointer) throws(TransportError) {
        if packetPerWrite {
            try sendWithoutLock(packet)
            return
        }
        try writer.withLock { state throws(TransportError) in
            guard state == .open else { throw .notOpen }
            var offset = 0
            while offset < packet.count {
                let rest = UnsafeRawBufferPointer(rebasing: packet[offset...])
                do throws(Errno) {
                    offset += try retryingOnInterrupt {
                        switch writeCall {
                        case .send: Glibc.send(fd, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL))
                        case .write: Glibc.write(fd, rest.baseAddress, rest.count)
                        }
                    }
                } catch {
                    if closing.load(ordering: .acquiring) { throw .notOpen }
                    if error == .brokenPipe || error == .connectionReset { throw .closedByPeer }
                    throw .systemCall(call: writeCall == .send ? "send" : "write", errno: error.rawValue)
                }
            }
        }
    }

    /// One `write()` per packet, no lock: counted in before the gate is checked, so that a close
    /// that shuts the gate and then finds nobody inside can close the descriptor (both sides
    /// sequentially consistent).
    private func sendWithoutLock(_ packet: UnsafeRawBufferPointer) throws(TransportError) {
        writersInside.add(1, ordering: .sequentiallyConsistent)
        defer { writersInside.subtract(1, ordering: .sequentiallyConsistent) }
        guard writeGate.load(ordering: .sequentiallyConsistent) == GateState.open.rawValue else { throw .notOpen }
        let written: Int
        do throws(Errno) {
            written = try retryingOnInterrupt { Glibc.write(fd, packet.baseAddress, packet.count) }
        } catch {
            if closing.load(ordering: .acquiring) { throw .notOpen }
            throw .systemCall(call: "write", errno: error.rawValue)
        }
        // Half a packet cannot be finished without splitting it in two.
        guard written == packet.count else { throw .systemCall(call: "write", errno: EMSGSIZE) }
    }

    // MARK: close

    func close() {
        enum Action { case nothing, release, wakeOnly, wakeAndJoin(pthread_t) }
        let action = control.withLock { c -> Action in
            switch c.phase {
            case .closed:
                return .nothing
            case .idle:
                c.phase = .closed
                return .release
            case .running:
                c.phase = .closed
                closing.store(true, ordering: .releasing)
                guard let thread = c.thread else { return .release }
                if pthread_equal(thread, pthread_self()) != 0 {
                    // Joining ourselves would deadlock: the reader finishes after the sink returns.
                    c.closeFromReader = true
                    return .wakeOnly
                }
                if c.threadReleased { return .release }
                c.threadReleased = true
                return .wakeAndJoin(thread)
            }
        }
        switch action {
        case .nothing:
            return
        case .release:
            closeDescriptors()
        case .wakeOnly:
            wake()
        case .wakeAndJoin(let thread):
            wake()
            pthread_join(thread, nil)
            closeDescriptors()
        }
    }

    /// Unblocks the reader (and, for sockets, any blocked writer).
    private func wake() {
        switch wakeup {
        case .shutdown:
            _ = shutdown(fd, Int32(SHUT_RDWR))
        case .wakePipe:
            var one: UInt8 = 1
            _ = Glibc.write(wakeWriteFD, &one, 1)
        }
    }

    private func closeDescriptors() {
        // Lock-free writers: shut the gate, then let those already inside leave (a write to the
        // kernel's HCI socket does not block).
        writeGate.store(GateState.closed.rawValue, ordering: .sequentiallyConsistent)
        while writersInside.load(ordering: .sequentiallyConsistent) > 0 { sched_yield() }
        writer.withLock { state in
            guard state != .closed else { return }
            state = .closed
            _ = Glibc.close(fd)
            if wakeReadFD >= 0 { _ = Glibc.close(wakeReadFD) }
            if wakeWriteFD >= 0 { _ = Glibc.close(wakeWriteFD) }
        }
    }
}
