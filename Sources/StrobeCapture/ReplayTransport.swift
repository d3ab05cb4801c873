import StrobeHCI
import StrobeBase
import Synchronization

/// How `ReplayTransport` stamps the packets it delivers.
package enum ReplayTimeBase: Sendable, Equatable {
    /// `HostTime.now()` at delivery, like a live transport.
    case deliveryTime
    /// `origin` plus the record's offset from the capture's first record, so that the time
    /// between two packets is the time between them in the capture. Never decreases: a record
    /// stamped earlier than its predecessor (captures do that) gets the predecessor's time.
    case captureOffsets(origin: HostTime)
}

/// Counters of a replay, readable from any thread.
package struct ReplayStatistics: Sendable, Equatable {
    /// Controller->host packets given to the sink.
    package var delivered = 0
    /// Host->controller records passed over.
    package var skipped = 0
    /// Records carrying no HCI packet (monitor notes, New Index, unknown H4 types).
    package var nonHCI = 0
    /// Packets the host sent, accepted and dropped.
    package var sent = 0

    package init() {}
}

/// Plays the controller's side of a btsnoop capture back without listening: as fast as it can,
/// on its own reader thread, it delivers every controller->host packet of the capture to the
/// sink, in file order, and passes over the host->controller ones. `send` accepts and counts
/// whatever the host sends; nothing the host sends changes the replay. For feeding a receive
/// path a capture (decoders, benchmarks); a host that must initialise needs
/// the `replay:FILE` transport, which answers its commands.
///
/// The replay ends with `transportDidClose(.endOfCapture(records:))` after the last record,
/// `transportDidClose(.malformedCapture(reason:))` at the first malformed record, or
/// `transportDidClose(nil)` after `close()`. A file that cannot be opened, or whose header is
/// not a supported btsnoop header, makes `start` throw `TransportError.cannotOpen`.
package final class ReplayTransport: HCITransport {
    /// `replay:` and the capture's path, or the name given for a capture held in memory.
    package let name: String
    package let timeBase: ReplayTimeBase

    private enum Source: Sendable {
        case file(String)
        case memory([UInt8])
    }

    private enum State {
        case idle, running, finished
    }

    private let source: Source
    private let state = Lock(State.idle)
    private let stopRequested = Atomic(false)
    private let delivered = Atomic(0)
    private let skipped = Atomic(0)
    private let nonHCI = Atomic(0)
    private let sent = Atomic(0)

    /// Replays the capture at `path`. The default time base keeps the capture's spacing,
    /// starting from the moment the transport is made.
    package init(path: String, timeBase: ReplayTimeBase = .captureOffsets(origin: .now())) {
        name = "replay:\(path)"
        source = .file(path)
        self.timeBase = timeBase
    }

    /// Replays a capture held in memory.
    package init(bytes: [UInt8], name: String = "replay:memory", timeBase: ReplayTimeBase = .captureOffsets(origin: .now())) {
        self.name = name
        source = .memory(bytes)
        self.timeBase = timeBase
    }

    package var statistics: ReplayStatistics {
        var s = ReplayStatistics()
        s.delivered = delivered.load(ordering: .relaxed)
        s.skipped = skipped.load(ordering: .relaxed)
        s.nonHCI = nonHCI.load(ordering: .relaxed)
        s.sent = sent.load(ordering: .relaxed)
        return s
    }

    /// Opens the capture, checks its header and starts the reader thread that delivers the
    /// controller's packets to `sink`. Throws `TransportError.cannotOpen` when the file cannot be
    /// opened or its header is not a supported btsnoop header, `.notOpen` when the transport was
    /// already started or closed, and `.systemCall` when the thread cannot be created.
    package func start(_ sink: any HCIPacketSink) throws(TransportError) {
        let reader: BtsnoopReader
        do throws(BtsnoopError) {
            switch source {
            case .file(let path): reader = try BtsnoopReader(path: path)
            case .memory(let bytes): reader = try BtsnoopReader(bytes: bytes)
            }
        } catch {
            throw TransportError.cannotOpen(endpoint: name, reason: error.description)
        }
        let canStart = state.withLock { state in
            guard case .idle = state else { return false }
            state = .running
            return true
        }
        guard canStart else { throw TransportError.notOpen }
        do {
            try spawnDetachedThread { [self] in run(reader, sink) }
        } catch {
            state.withLock { $0 = .finished }
            throw error
        }
    }

    /// Counts the packet and drops it: nothing the host sends changes the replay. Throws
    /// `TransportError.notOpen` unless the replay is running.
    package func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) {
        let running = state.withLock { state in
            if case .running = state { true } else { false }
        }
        guard running else { throw TransportError.notOpen }
        sent.add(1, ordering: .relaxed)
    }

    /// Stops the replay before its next record. The reader thread then reports
    /// `transportDidClose(nil)`, unless the capture had already ended.
    package func close() {
        state.withLock { state in
            if case .idle = state { state = .finished }
        }
        stopRequested.store(true, ordering: .releasing)
    }

    private func run(_ reader: BtsnoopReader, _ sink: any HCIPacketSink) {
        var reason: TransportError?
        var firstRecord: Int64?
        var lastTime = HostTime(nanoseconds: 0)
        while true {
            if stopRequested.load(ordering: .acquiring) {
                reason = nil
                break
            }
            let next: BtsnoopRecord?
            do throws(BtsnoopError) {
                next = try reader.next()
            } catch {
                reason = .malformedCapture(reason: error.description)
                break
            }
            guard let record = next else {
                reason = .endOfCapture(records: reader.recordsRead)
                break
            }
            let first = firstRecord ?? record.timestamp.unixMicroseconds
            firstRecord = first
            guard case .hci(let type) = record.kind else {
                nonHCI.add(1, ordering: .relaxed)
                continue
            }
            guard record.direction == .controllerToHost else {
                skipped.add(1, ordering: .relaxed)
                continue
            }
            let time: HostTime
            switch timeBase {
            case .deliveryTime:
                time = .now()
            case .captureOffsets(let origin):
                lastTime = max(lastTime, Self.offset(origin, by: record.timestamp.unixMicroseconds, since: first))
                time = lastTime
            }
            delivered.add(1, ordering: .relaxed)
            sink.transportDidReceive(type, payload: record.payload, at: time)
        }
        reader.close()
        state.withLock { $0 = .finished }
        sink.transportDidClose(reason)
    }

    /// `origin` + (`micros` − `first`), saturating; a negative offset counts as zero.
    package static func offset(_ origin: HostTime, by micros: Int64, since first: Int64) -> HostTime {
        let (delta, overflow) = micros.subtractingReportingOverflow(first)
        let deltaMicros: UInt64 = overflow ? (micros > first ? UInt64.max : 0) : UInt64(max(delta, 0))
        let (nanos, overflow2) = deltaMicros.multipliedReportingOverflow(by: 1000)
        let (sum, overflow3) = origin.nanoseconds.addingReportingOverflow(nanos)
        return HostTime(nanoseconds: overflow2 || overflow3 ? UInt64.max : sum)
    }
}
