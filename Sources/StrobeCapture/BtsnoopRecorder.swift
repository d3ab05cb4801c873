import StrobeHCI
import StrobeBase
import Synchronization

/// Counters of a recording.
package struct RecorderStatistics: Sendable, Equatable {
    /// Packets written to the file, both ways.
    package var recorded = 0
    /// Packets that could not be written (disk full, a type the datalink cannot express).
    package var failures = 0
    /// Why the last failure happened.
    package var lastError: BtsnoopError?

    package init() {}
}

/// A tee in front of any transport: every packet sent and received goes, unchanged and in the
/// same call, to the wrapped transport or the sink, and is also written to a btsnoop file with
/// a wall-clock timestamp. A recording failure is counted and never disturbs the traffic.
///
/// The file is written under one lock, so the reader thread and any number of sending threads
/// may run at once; records appear in the order the lock was taken. Each sent packet is
/// recorded just before it is handed to the transport, so a command always precedes the events
/// it causes. The file is flushed after every record and closed when the transport closes.
public final class BtsnoopRecorder: HCITransport {
    /// The transport being recorded; every call is passed on to it.
    public let transport: any HCITransport
    private let timestamp: @Sendable () -> BtsnoopTimestamp
    private let state: Lock<State>

    private struct State {
        var writer: BtsnoopWriter?
        var statistics = RecorderStatistics()
    }

    /// Records to a new datalink-1002 (H4) file at `path`; flags are 0 sent data, 1 received
    /// data, 2 sent command, 3 received event. `clock` gives each record's timestamp.
    public convenience init(
        wrapping transport: any HCITransport, path: String,
        clock: @escaping @Sendable () -> BtsnoopTimestamp = { BtsnoopTimestamp.now() }
    ) throws(BtsnoopError) {
        let writer = try BtsnoopWriter(path: path, datalink: .h4, flushEachRecord: true)
        self.init(wrapping: transport, writer: writer, clock: clock)
    }

    /// Records through `writer` (any datalink); the recorder owns it from now on.
    package init(
        wrapping transport: any HCITransport, writer: sending BtsnoopWriter,
        clock: @escaping @Sendable () -> BtsnoopTimestamp = { BtsnoopTimestamp.now() }
    ) {
        self.transport = transport
        self.timestamp = clock
        state = Lock(State(writer: writer))
    }

    /// The wrapped transport's name followed by ` (recorded)`.
    public var name: String { "\(transport.name) (recorded)" }
    /// The wrapped transport's clock.
    public var clock: any Clock<Duration> { transport.clock }

    package var statistics: RecorderStatistics { state.withLock { $0.statistics } }

    /// Starts the wrapped transport with a sink that records each received packet (controller to
    /// host) and then hands it to `sink`. Throws whatever the wrapped transport's `start` throws.
    public func start(_ sink: any HCIPacketSink) throws(TransportError) {
        try transport.start(RecordingSink(recorder: self, downstream: sink))
    }

    /// Records the packet as host-to-controller, then sends it through the wrapped transport and
    /// throws whatever that `send` throws. A failure to record never keeps the packet from being sent.
    public func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) {
        if let first = h4Packet.first, let type = HCIPacketType(rawValue: first) {
            record(type, .hostToController, UnsafeRawBufferPointer(rebasing: h4Packet[1...]))
        } else {
            recordUndecodable(h4Packet)
        }
        try transport.send(h4Packet)
    }

    /// Closes the wrapped transport; the file is flushed and closed when the transport reports
    /// that it has closed.
    public func close() {
        transport.close()
    }

    /// Flushes and closes the file now (the transport keeps running, unrecorded). Throws when
    /// the file cannot be closed, or when packets could not be recorded (`recordsNotWritten`):
    /// the capture is then not the whole session.
    public func finishRecording() throws(BtsnoopError) {
        try closeFile()
        let (failures, lastError) = state.withLock { ($0.statistics.failures, $0.statistics.lastError) }
        if failures > 0 { throw .recordsNotWritten(count: failures, reason: lastError.map(String.init(describing:)) ?? "unknown") }
    }

    /// Flushes and closes the file, once.
    private func closeFile() throws(BtsnoopError) {
        let writer = state.withLock { state in
            defer { state.writer = nil }
            return state.writer.take()
        }
        try writer?.close()
    }

    func record(_ type: HCIPacketType, _ direction: BtsnoopDirection, _ payload: UnsafeRawBufferPointer) {
        let payload = BorrowedBytes(payload)
        let clock = self.timestamp
        state.withLock { state in
            guard let writer = state.writer else { return }
            do throws(BtsnoopError) {
                // The clock is read under the lock so that timestamps follow file order.
                try writer.write(type, direction: direction, payload: payload.view, at: clock())
                state.statistics.recorded += 1
            } catch {
                state.statistics.failures += 1
                state.statistics.lastError = error
            }
        }
    }

    /// An outgoing packet with no valid H4 indicator: kept verbatim where H4 can hold it.
    private func recordUndecodable(_ bytes: UnsafeRawBufferPointer) {
        let bytes = BorrowedBytes(bytes)
        let clock = self.timestamp
        state.withLock { state in
            guard let writer = state.writer else { return }
            do throws(BtsnoopError) {
                guard writer.datalink == .h4 else {
                    throw .unrepresentable(type: .command, direction: .hostToController, datalink: writer.datalink)
                }
                try writer.writeRecord(flags: 0, data: bytes.view, at: clock())
                state.statistics.recorded += 1
            } catch {
                state.statistics.failures += 1
                state.statistics.lastError = error
            }
        }
    }

    func transportClosed() {
        do throws(BtsnoopError) {
            try closeFile()
        } catch {
            state.withLock { state in
                state.statistics.failures += 1
                state.statistics.lastError = error
            }
        }
    }
}

/// Records what the wrapped transport delivers, then passes it on.
private final class RecordingSink: HCIPacketSink {
    let recorder: BtsnoopRecorder
    let downstream: any HCIPacketSink

    init(recorder: BtsnoopRecorder, downstream: any HCIPacketSink) {
        self.recorder = recorder
        self.downstream = downstream
    }

    func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
        recorder.record(type, .controllerToHost, payload)
        downstream.transportDidReceive(type, payload: payload, at: time)
    }

    func transportDidFinishBatch() {
        downstream.transportDidFinishBatch()
    }

    var readerScheduling: ThreadScheduling { downstream.readerScheduling }

    func transportDidClose(_ error: TransportError?) {
        recorder.transportClosed()
        downstream.transportDidClose(error)
    }
}

/// A packet view carried into the lock. The view is read during the call that made it and
/// never kept, so it cannot tie the writer to the caller, which is what the region checker
/// would otherwise assume of a pointer.
private struct BorrowedBytes: @unchecked Sendable {
    let view: UnsafeRawBufferPointer
    init(_ view: UnsafeRawBufferPointer) { self.view = view }
}
