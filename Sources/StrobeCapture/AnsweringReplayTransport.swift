import Dispatch
import StrobeHCI
import StrobeBase
import Synchronization

/// A btsnoop capture acting as the controller it recorded (`replay:FILE`): each command the
/// host sends is answered with the capture's recorded answer for that opcode (or a generic
/// success), and the rest of the controller's side plays with its recorded spacing at the
/// chosen speed, holding at the capture's first scan enable until the host enables scanning
/// (`ReplayScript`). ACL data the host sends is accepted and dropped.
///
/// Once the capture's packets are all played the transport stays open and keeps answering,
/// as a controller with nothing more to report would; it ends when the host closes it
/// (`transportDidClose(nil)`). A file that cannot be opened, is not btsnoop, or has a
/// malformed record makes `start` throw `TransportError.cannotOpen`.
package final class AnsweringReplayTransport: HCITransport {
    /// `replay:` and the capture's path, or the name given for a capture held in memory.
    package let name: String
    /// How fast the controller's unanswered packets play, relative to their spacing in the capture.
    package let speed: ReplaySpeed

    private enum Source: Sendable {
        case file(String)
        case memory([UInt8])
    }

    private struct State {
        var script: ReplayScript?
        var running = false
        var finished = false
        var stopRequested = false
        /// Answers the reader thread still has to deliver, in the order the commands came.
        var pendingAnswers: [[UInt8]] = []
        /// How often each opcode was sent, to pick its next recorded answer.
        var commandsSent: [HCIOpcode: Int] = [:]
        var hostEnabledScanning = false
        var statistics = ReplayStatistics()
    }

    private let source: Source
    private let state = Lock(State())
    /// Wakes the reader thread: a command arrived, or the transport is closing.
    private let wake = DispatchSemaphore(value: 0)

    /// Replays the capture at `path` at `speed` (default real time). The file is read by `start`,
    /// not here.
    package init(path: String, speed: ReplaySpeed = .realTime) {
        name = "replay:\(path)"
        source = .file(path)
        self.speed = speed
    }

    /// Replays a capture held in memory (a test fixture, for example) under `name`.
    package init(bytes: [UInt8], name: String = "replay:memory", speed: ReplaySpeed = .realTime) {
        self.name = name
        source = .memory(bytes)
        self.speed = speed
    }

    /// `delivered` counts answers and played packets; `sent` what the host sent; `skipped` the
    /// capture's own host-to-controller records.
    package var statistics: ReplayStatistics { state.withLock { $0.statistics } }

    /// Reads the whole capture and starts the reader thread that answers commands and plays the
    /// rest to `sink`. Throws `TransportError.cannotOpen` when the capture cannot be opened or is
    /// malformed, `.notOpen` when the transport was already started or closed, and `.systemCall`
    /// when the thread cannot be created.
    package func start(_ sink: any HCIPacketSink) throws(TransportError) {
        let script: ReplayScript
        do throws(BtsnoopError) {
            let reader: BtsnoopReader
            switch source {
            case .file(let path): reader = try BtsnoopReader(path: path)
            case .memory(let bytes): reader = try BtsnoopReader(bytes: bytes)
            }
            defer { reader.close() }
            script = try ReplayScript(reader)
        } catch {
            throw TransportError.cannotOpen(endpoint: name, reason: error.description)
        }
        let canStart = state.withLock { state in
            guard !state.running, !state.finished else { return false }
            state.running = true
            state.script = script
            state.statistics.nonHCI = script.nonHCI
            return true
        }
        guard canStart else { throw TransportError.notOpen }
        do {
            try spawnDetachedThread { [self] in run(script, sink) }
        } catch {
            state.withLock { $0.finished = true }
            throw error
        }
    }

    /// Takes one H4 packet from the host. A command (type 0x01) queues the capture's next recorded
    /// answer for its opcode, and LE Set Scan Enable or LE Set Extended Scan Enable with Enable =
    /// 0x01 releases the playback held at the capture's scan start; anything else is counted and
    /// dropped. Throws `TransportError.notOpen` before `start` or after `close()`.
    package func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) {
        let accepted = state.withLock { state -> Bool in
            guard state.running, !state.stopRequested, let script = state.script else { return false }
            state.statistics.sent += 1
            // A command: H4 type 0x01, opcode, parameter length, parameters.
            guard h4Packet.count >= 4, h4Packet[0] == HCIPacketType.command.rawValue else { return true }
            let command = UnsafeRawBufferPointer(rebasing: h4Packet[1...])
            let opcode = HCIOpcode(rawValue: UInt16(command[0]) | UInt16(command[1]) << 8)
            let occurrence = state.commandsSent[opcode, default: 0]
            state.commandsSent[opcode] = occurrence + 1
            state.pendingAnswers.append(script.answer(to: opcode, occurrence: occurrence))
            if ReplayScript.enablesScanning(command) { state.hostEnabledScanning = true }
            return true
        }
        guard accepted else { throw TransportError.notOpen }
        wake.signal()
    }

    /// Stops the replay; the reader thread then reports `transportDidClose(nil)`.
    package func close() {
        let wasRunning = state.withLock { state -> Bool in
            state.stopRequested = true
            if !state.running { state.finished = true }
            return state.running
        }
        if wasRunning { wake.signal() }
    }

    private func run(_ script: ReplayScript, _ sink: any HCIPacketSink) {
        sink.readerScheduling.applyToCurrentThread()
        var next = 0
        // The host time and capture time that line up: the start, then the scan enable.
        var anchor = (host: HostTime.now(), capture: script.packets.first?.captureMicroseconds ?? 0)
        var waitingForScan = script.scanStart != nil
        while true {
            let (answers, stop, scanning) = state.withLock { state in
                defer { state.pendingAnswers.removeAll() }
                return (state.pendingAnswers, state.stopRequested, state.hostEnabledScanning)
            }
            if stop { break }
            for answer in answers { deliver(.event, answer, to: sink) }
            if !answers.isEmpty { sink.transportDidFinishBatch() }

            guard next < script.packets.count else {
                wake.wait()   // Nothing left to play: answer commands until closed.
                continue
            }
            if waitingForScan, let scanStart = script.scanStart, next == scanStart.index {
                guard scanning else {
                    wake.wait()
                    continue
                }
                waitingForScan = false
                anchor = (HostTime.now(), scanStart.captureMicroseconds)
            }
            let packet = script.packets[next]
            let due = anchor.host.nanoseconds &+ speed.nanoseconds(forCaptureMicroseconds: packet.captureMicroseconds - anchor.capture)
            let now = HostTime.now().nanoseconds
            if due > now {
                // Woken early by a command: answer it, then come back to this packet.
                _ = wake.wait(timeout: .now() + .nanoseconds(Int(min(due - now, UInt64(Int.max)))))
                continue
            }
            deliver(packet.type, packet.payload, to: sink)
            sink.transportDidFinishBatch()
            next += 1
        }
        state.withLock { state in
            state.running = false
            state.finished = true
        }
        sink.transportDidClose(nil)
    }

    private func deliver(_ type: HCIPacketType, _ payload: [UInt8], to sink: any HCIPacketSink) {
        state.withLock { $0.statistics.delivered += 1 }
        payload.withUnsafeBytes { sink.transportDidReceive(type, payload: $0, at: .now()) }
    }
}
