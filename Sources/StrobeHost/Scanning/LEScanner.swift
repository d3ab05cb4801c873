import StrobeBase
import Synchronization
import StrobeHCI

/// Discovers advertisers through an `HCIController`: legacy or extended scanning (extended when
/// the controller supports it), active or passive. Duplicates are folded in the host: one entry
/// per address and address type, its RSSI and data updated by every report and its scan
/// response merged in.
///
/// Any number of scanners may scan on one controller at once: the controller runs one scan
/// for all of them (active if any asks, the shortest interval), enabled while any scans; each
/// scanner sees every report while it scans, and stopping one leaves the others scanning as
/// they were (the last one turns the scan off).
public final class LEScanner: Sendable {
    /// Which HCI commands a scan uses: the legacy or the extended scanning commands.
    public enum Mode: Sendable, Hashable {
        /// Extended scanning when the controller supports it, legacy otherwise.
        case automatic
        /// LE Set Scan Parameters and LE Set Scan Enable, on LE 1M, even if extended scanning is supported.
        case legacy
        /// Extended scanning; `start` fails with `StrobeError.controller(.unsupported)` if the controller lacks it.
        case extended
    }

    /// How to scan: active or passive, timing, HCI commands, own address type and PHYs.
    public struct Configuration: Sendable, Hashable {
        /// Active scanning asks for scan responses (names often live there).
        public var active: Bool
        /// How often the radio starts listening; 60 ms by default. Sent in 0.625 ms units, rounded and clamped
        /// to 2.5 ms ... 10.24 s for legacy scanning, 2.5 ms ... 40.96 s for extended.
        public var interval: Duration
        /// How long of each interval the radio listens; at most `interval`.
        public var window: Duration
        /// Legacy or extended HCI commands; `.automatic` by default.
        public var mode: Mode
        /// The Own_Address_Type used for scan requests; `.public` by default. Must be the one other
        /// scanners on the controller use.
        public var ownAddressType: LEOwnAddressType
        /// Let the controller drop repeated reports too (the host folds them either way).
        public var filterDuplicatesInController: Bool
        /// The primary PHYs listened on with extended scanning: LE 1M, LE Coded (long range) or
        /// both (the controller must have LE Coded); LE 1M when neither is in the set. Legacy
        /// scanning is on LE 1M only.
        public var phys: LEPHYs

        /// Defaults: active, 60 ms interval and 60 ms window (listening all the time), `.automatic`, public
        /// own address, no duplicate filtering in the controller, LE 1M.
        public init(active: Bool = true, interval: Duration = .milliseconds(60), window: Duration = .milliseconds(60),
                    mode: Mode = .automatic, ownAddressType: LEOwnAddressType = .public,
                    filterDuplicatesInController: Bool = false, phys: LEPHYs = .le1M) {
            self.active = active
            self.interval = interval
            self.window = window
            self.mode = mode
            self.ownAddressType = ownAddressType
            self.filterDuplicatesInController = filterDuplicatesInController
            self.phys = phys
        }
    }

    /// Totals of what the scanner has received since it was created (`start` does not reset them).
    public struct Counters: Sendable, Hashable {
        /// Advertising reports (legacy or extended, after reassembly) folded into devices.
        public var reports = 0
        /// How many of `reports` were scan responses.
        public var scanResponses = 0
        /// Reports whose advertising data did not parse (the device is still updated, its data kept).
        public var malformedAdvertisingData = 0
        /// Creates counters that are all zero.
        public init() {}
    }

    /// The controller whose scan this scanner shares.
    public let controller: HCIController
    /// This scanner as a client of the controller's one scan.
    private let client: UInt64
    private let state = Lock(State())
    private let reportBroadcast = AsyncBroadcast<ScanReport>()

    /// A scan client on `controller` (apps get theirs from `BluetoothHost.scanner()`).
    package init(controller: HCIController) {
        self.controller = controller
        client = controller.scanning.newClient()
        let token = controller.addEventHandler(onClose: { [weak self] _ in self?.controllerClosed() }) { [weak self] event, time in
            self?.receive(event, at: time)
        }
        state.withLock { $0.observer = token }
    }

    deinit {
        if let token = state.withLock({ $0.observer }) { controller.removeEventHandler(token) }
        if state.withLock({ $0.scanning }) { controller.scanning.forget(client) }
        for continuation in state.withLock({ Array($0.streams.values) }) { continuation.finish() }
        reportBroadcast.finish()
    }

    // MARK: - Public state

    /// Whether this scanner scans: from a successful `start` until `stop`, the controller closing, or the
    /// controller's scan being dropped.
    public var isScanning: Bool { state.withLock { $0.scanning } }

    /// Whether the running (or last) scan uses the extended commands.
    public var usesExtendedScanning: Bool { state.withLock { $0.extended } }

    /// Every device found since the last `start`, in order of discovery.
    public var devices: [DiscoveredDevice] {
        state.withLock { s in s.order.compactMap { s.devices[$0] } }
    }

    /// The device with `id` found since the last `start`, or nil if it has not been seen.
    public func device(_ id: DiscoveredDevice.ID) -> DiscoveredDevice? { state.withLock { $0.devices[id] } }

    /// What this scanner has received so far.
    public var counters: Counters { state.withLock { $0.counters } }

    /// The last advertising data parse error, for diagnostics.
    package var lastMalformed: AdvertisingDataError? { state.withLock { $0.lastMalformed } }

    /// Every change to a device (the whole merged entry), as it happens. Finishes when the
    /// controller closes or the scanner goes away.
    public func updates(
        bufferingPolicy: AsyncStream<DiscoveredDevice>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<DiscoveredDevice> {
        let (stream, continuation) = AsyncStream.makeStream(of: DiscoveredDevice.self, bufferingPolicy: bufferingPolicy)
        let id = state.withLock { s -> UInt64? in
            guard !s.closed else { return nil }
            s.nextStreamID += 1
            s.streams[s.nextStreamID] = continuation
            return s.nextStreamID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands every change to a device to `handler` on the thread that learnt it (so it must not
    /// block), and nil once when the scanner ends (the controller closed). For owners that wait
    /// on a timer rather than a stream. Returns the id `unwatch` takes; nil, without a call, when
    /// the scanner has ended already.
    package func watch(_ handler: @escaping @Sendable (DiscoveredDevice?) -> Void) -> UInt64? {
        state.withLock { s in
            guard !s.closed else { return nil }
            s.nextStreamID += 1
            s.watchers[s.nextStreamID] = handler
            return s.nextStreamID
        }
    }

    package func unwatch(_ id: UInt64) {
        _ = state.withLock { $0.watchers.removeValue(forKey: id) }
    }

    /// Every advertising report as it comes (extended ones reassembled), before it is folded
    /// into its device. Finishes when the controller closes or the scanner goes away.
    package func reports() -> AsyncStream<ScanReport> { reportBroadcast.stream() }

    // MARK: - Scanning

    /// Starts scanning (or changes how, when it scans already) and forgets earlier results.
    /// Returns once the controller scans as asked, or as well as asked when other scanners want
    /// more (active, a shorter interval). Throws `StrobeError.controller(.scanConflict)` when the scan the others
    /// run cannot be this one: legacy against extended commands (`.automatic` follows theirs), or
    /// another own address type; the scanner is then not scanning.
    public func start(_ configuration: Configuration = Configuration()) async throws(StrobeError) {
        try await filingErrors {
            guard let info = controller.info else { throw HCIError.notOpen }
            let extended: Bool
            switch configuration.mode {
            case .automatic: extended = controller.scanning.usesExtendedCommands ?? info.supportsExtendedScanning
            case .legacy: extended = false
            case .extended:
                guard info.supportsExtendedScanning else { throw HCIError.unsupported(.leSetExtendedScanParameters) }
                extended = true
            }
            // Legacy intervals go up to 10.24 s (0x4000), extended ones to 40.96 s.
            let range = extended ? 0x0004...0xFFFF : 0x0004...0x4000
            let interval = LETime.units625us(configuration.interval, range: range)
            let settings = LEScanArbiter.Settings(
                extended: extended, active: configuration.active, interval: interval,
                window: LETime.units625us(configuration.window, range: range), ownAddressType: configuration.ownAddressType,
                filterDuplicates: configuration.filterDuplicatesInController, phys: extended ? configuration.phys : .le1M)
            let start = state.withLock { s in
                s.devices.removeAll()
                s.order.removeAll()
                s.fragments.removeAll()
                s.extended = extended
                s.scanning = true
                s.starts += 1
                return s.starts
            }
            do {
                try await controller.scanning.join(client, settings) { [weak self] error in self?.scanDropped(error, start: start) }
            } catch {
                state.withLock { $0.scanning = false }
                throw error
            }
        }
    }

    /// The controller's scan ended without this scanner stopping it: a restart for another
    /// scanner failed. The devices found stay; `updates` and `reports` go quiet until `start`.
    /// A notice for an earlier `start` than the latest is old news.
    private func scanDropped(_ error: any Error, start: Int) {
        guard state.withLock({ s in
            guard s.starts == start else { return false }
            s.scanning = false
            return true
        }) else { return }
        controller.logger.warning("scanning stopped: the controller's scan could not be restarted", metadata: ["error": "\(error)"])
    }

    /// Stops this scanner; the devices found stay available. The controller's scan is disabled
    /// when no other scanner on it scans. This scanner has stopped either way; a disable the
    /// controller refused or never took throws, so that a scan left running on the controller
    /// is not taken for a stopped one. Harmless when not scanning.
    public func stop() async throws(StrobeError) {
        try await filingErrors {
            let wasScanning = state.withLock { s in
                defer { s.scanning = false }
                return s.scanning
            }
            guard wasScanning else { return }
            try await controller.scanning.leave(client)
        }
    }

    /// Scans for `duration` on the controller's clock, stops, and returns what was found.
    /// When the calling task is cancelled the scan is still stopped.
    public func scan(for duration: Duration, configuration: Configuration = Configuration()) async throws(StrobeError) -> [DiscoveredDevice] {
        try await filingErrors {
            try await start(configuration)
            do {
                try await controller.sleep(for: duration)
            } catch {
                // Stopping waits for the controller also in a cancelled task. A stop that failed
                // is the news when the scan was only cancelled: the controller may still scan.
                do throws(StrobeError) {
                    try await stop()
                } catch let stopError {
                    if error is CancellationError || (error as? StrobeError) == .cancelled { throw stopError }
                }
                throw error
            }
            try await stop()
            return devices
        }
    }

    /// Scans for `duration` in the background and hands what was found to `onStop` (also when
    /// the returned task is cancelled early, with what was found so far; or the error).
    @discardableResult
    public func scan(for duration: Duration, configuration: Configuration = Configuration(),
                     onStop: @escaping @Sendable (Result<[DiscoveredDevice], StrobeError>) -> Void) -> Task<Void, Never> {
        Task(executorPreference: controller.loop.offLoopExecutor) { [self] in
            do throws(StrobeError) {
                onStop(.success(try await scan(for: duration, configuration: configuration)))
            } catch .cancelled {
                onStop(.success(devices))
            } catch {
                onStop(.failure(error))
            }
        }
    }

    // MARK: - Reports

    private func receive(_ event: HCIEvent, at time: HostTime) {
        switch event {
        case .leAdvertisingReport(let reports):
            for report in reports {
                publish(ScanReport(report))
                fold(DiscoveredDevice.ID(address: report.address, addressType: report.addressType),
                     isScanResponse: report.eventType.isScanResponse, connectable: report.eventType.isConnectable,
                     data: report.data, rssi: report.rssi, txPower: nil, at: time)
            }
        case .leExtendedAdvertisingReport(let reports):
            for report in reports {
                let id = DiscoveredDevice.ID(address: report.address, addressType: report.addressType)
                let key = FragmentKey(id: id, sid: report.advertisingSID, scanResponse: report.eventType.isScanResponse)
                // Long extended payloads arrive in pieces: hold them until the last one.
                let data = state.withLock { s -> [UInt8]? in
                    guard s.scanning else { return nil }
                    if report.eventType.dataStatus == .incompleteMoreToCome {
                        s.fragments[key, default: []].append(contentsOf: report.data)
                        return nil
                    }
                    return (s.fragments.removeValue(forKey: key) ?? []) + report.data
                }
                guard let data else { continue }
                publish(ScanReport(report, data: data))
                fold(id, isScanResponse: report.eventType.isScanResponse, connectable: report.eventType.isConnectable,
                     data: data, rssi: report.rssi, txPower: report.txPower, at: time)
            }
        default:
            return
        }
    }

    private func publish(_ report: ScanReport) {
        if isScanning { reportBroadcast.yield(report) }
    }

    private func fold(_ id: DiscoveredDevice.ID, isScanResponse: Bool, connectable: Bool, data: [UInt8],
                      rssi: Int8?, txPower: Int8?, at time: HostTime) {
        let parsed: Result<AdvertisingData, AdvertisingDataError> = Result { () throws(AdvertisingDataError) in
            try AdvertisingData(bytes: data)
        }
        let update = state.withLock { s -> (DiscoveredDevice, [AsyncStream<DiscoveredDevice>.Continuation], [Watcher])? in
            guard s.scanning else { return nil }
            var device: DiscoveredDevice
            if let known = s.devices[id] {
                device = known
            } else {
                device = DiscoveredDevice(address: id.address, addressType: id.addressType)
                s.order.append(id)
            }
            s.counters.reports += 1
            device.reportCount += 1
            device.lastSeen = time
            if let rssi { device.rssi = Int(rssi) }
            if let txPower { device.reportedTxPower = txPower }
            switch parsed {
            case .success(let advertisingData):
                if isScanResponse { device.scanResponse = advertisingData } else { device.advertisingData = advertisingData }
            case .failure(let error):
                s.counters.malformedAdvertisingData += 1
                s.lastMalformed = error
            }
            if isScanResponse {
                s.counters.scanResponses += 1
            } else {
                device.connectable = connectable
            }
            device.refreshSummary()
            s.devices[id] = device
            return (device, Array(s.streams.values), Array(s.watchers.values))
        }
        guard let (device, streams, watchers) = update else { return }
        for stream in streams { stream.yield(device) }
        for watcher in watchers { watcher(device) }
    }

    private func controllerClosed() {
        let (streams, watchers) = state.withLock { s in
            s.closed = true
            s.scanning = false
            defer {
                s.streams.removeAll()
                s.watchers.removeAll()
            }
            return (Array(s.streams.values), Array(s.watchers.values))
        }
        for stream in streams { stream.finish() }
        for watcher in watchers { watcher(nil) }
        reportBroadcast.finish()
    }
}

extension LEScanner {
    struct FragmentKey: Hashable {
        var id: DiscoveredDevice.ID
        var sid: UInt8
        var scanResponse: Bool
    }

    typealias Watcher = @Sendable (DiscoveredDevice?) -> Void

    struct State {
        var observer: HCIController.ObserverToken?
        var scanning = false
        /// Counts `start` calls: a drop notice is for one of them.
        var starts = 0
        var extended = false
        var closed = false
        var devices: [DiscoveredDevice.ID: DiscoveredDevice] = [:]
        var order: [DiscoveredDevice.ID] = []
        var fragments: [FragmentKey: [UInt8]] = [:]
        var streams: [UInt64: AsyncStream<DiscoveredDevice>.Continuation] = [:]
        var watchers: [UInt64: Watcher] = [:]
        /// Numbers the streams and the watchers.
        var nextStreamID: UInt64 = 0
        var counters = Counters()
        var lastMalformed: AdvertisingDataError?
    }
}
