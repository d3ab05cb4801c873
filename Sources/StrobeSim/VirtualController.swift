import StrobeHCI
import StrobeBase
import Synchronization

/// An LE controller in software that speaks HCI to its host exactly as a transport does, so the
/// unchanged host stack runs on it. It lives in a `VirtualAir`, which carries its advertising,
/// scanning and connections to the other controllers there.
package final class VirtualController: HCITransport, Sendable {
    package struct Configuration: Sendable {
        package var address: BluetoothAddress
        /// LE ACL data packet length and count reported by LE Read Buffer Size.
        package var aclLength: Int
        package var aclCount: Int
        /// RSSI that scanners report for this device's advertisements.
        package var rssi: Int8
        package var name: String
        /// A defect: after answering this command, no more command credits.
        package var withholdsCommandCreditsAfter: UInt16?

        package init(address: BluetoothAddress, aclLength: Int = 27, aclCount: Int = 8, rssi: Int8 = -55, name: String = "sim") {
            self.address = address
            self.aclLength = aclLength
            self.aclCount = aclCount
            self.rssi = rssi
            self.name = name
        }
    }

    package let configuration: Configuration
    package var name: String { "sim:\(configuration.name)" }
    /// The air's clock: the host above a simulated controller waits in the world's time.
    package var clock: any Clock<Duration> { air.clock }
    // Strong: the air keeps its controllers and each controller its air, until `close` removes it.
    let air: VirtualAir
    let id: Int
    private let outbox: AsyncStream<[UInt8]>.Continuation
    private let inbox: AsyncStream<[UInt8]>
    private let sink = Lock<(any HCIPacketSink)?>(nil)
    private let started = Atomic<Bool>(false)
    /// Callers of `flush`, in order; each is resumed by the empty packet it queued.
    private let flushes = Lock<[Waiter<Void>]>([])

    init(air: VirtualAir, id: Int, configuration: Configuration) {
        self.air = air
        self.id = id
        self.configuration = configuration
        (inbox, outbox) = AsyncStream.makeStream(of: [UInt8].self)
    }

    /// Whether this controller has scanning enabled now (LE Set Scan Enable).
    package var isScanning: Bool { air.isScanning(id) }

    package func start(_ sink: any HCIPacketSink) throws(TransportError) {
        guard !started.exchange(true, ordering: .relaxed) else { throw TransportError.notOpen }
        self.sink.withLock { $0 = sink }
        // Packets to the host go out in order, from a task of their own on the air's thread, as
        // from a reader thread.
        Task(executorPreference: air.executor) { [inbox, weak self] in
            for await packet in inbox {
                guard let self else { continue }
                guard let first = packet.first else {
                    self.resumeFlushes(1)
                    continue
                }
                guard let sink = self.sink.withLock({ $0 }), let type = HCIPacketType(rawValue: first) else { continue }
                packet.withUnsafeBytes { bytes in
                    sink.transportDidReceive(type, payload: UnsafeRawBufferPointer(rebasing: bytes[1...]), at: self.air.hostTime())
                }
            }
            self?.resumeFlushes(Int.max)
        }
    }

    /// Returns once every packet queued for the host before the call has been handed to it (at
    /// once when the controller is closed or was never started), or once the caller is cancelled.
    package func flush() async {
        guard started.load(ordering: .relaxed) else { return }
        let waiter = Waiter<Void>()
        flushes.withLock { $0.append(waiter) }
        // An empty packet marks the place; a finished outbox takes no more.
        if case .terminated = outbox.yield([]) { resumeFlushes(Int.max) }
        // Cancelled: the mark stays queued, and its turn resolves a wait already over.
        _ = try? await waiter.wait()
    }

    private func resumeFlushes(_ count: Int) {
        let resumed = flushes.withLock { waiting -> [Waiter<Void>] in
            let first = Array(waiting.prefix(count))
            waiting.removeFirst(first.count)
            return first
        }
        for waiter in resumed { _ = waiter.succeed(()) }
    }

    package func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) {
        guard started.load(ordering: .relaxed), let first = h4Packet.first else { throw TransportError.notOpen }
        let payload = Array(h4Packet.dropFirst())
        switch HCIPacketType(rawValue: first) {
        case .command?: air.command(from: self, payload)
        case .acl?: air.acl(from: self, payload)
        default: break
        }
    }

    package func close() { close(nil) }

    /// Closes the controller; its host hears `error` as the reason.
    package func close(_ error: TransportError?) {
        air.remove(self)
        outbox.finish()
        let sink = self.sink.withLock { s -> (any HCIPacketSink)? in
            defer { s = nil }
            return s
        }
        sink?.transportDidClose(error)
    }

    /// Queues an H4 packet (type byte first) for the host.
    package func deliver(_ h4Packet: [UInt8]) {
        outbox.yield(h4Packet)
    }
}
