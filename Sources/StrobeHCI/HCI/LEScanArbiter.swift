/// The controller runs one scan; any number of clients (scanners) ask for one. This machine,
/// without I/O, keeps what each client asked for and what the controller runs, and says what to
/// send next. Scanning is enabled while anyone scans. A client the running scan serves joins it
/// as it is; one that wants more (active, a shorter interval, another PHY) restarts it with the
/// clients' merge (active if any is, the shortest interval, the longest window within it, the
/// union of PHYs, the controller's duplicate filter only if every client accepts it). A client
/// leaving changes nothing until the last one leaves: a scan restarted to ask for less would
/// leave a gap in everyone's reports, and a controller that is connecting may refuse it.
///
/// Its owner (`LEScanOwner`) runs one step at a time and reports how it went; a step that fails
/// drops the clients it was for (those not yet confirmed by a step that succeeded), and when
/// there are none such, every client: their scans cannot be what they asked for. After a failed
/// step the controller may still be scanning, so the next start disables first.
package struct LEScanArbiter: Sendable {
    /// What one client asks for, and what the controller runs: the parameters of LE Set (Extended)
    /// Scan Parameters and LE Set (Extended) Scan Enable.
    package struct Settings: Hashable, Sendable {
        package var extended: Bool
        package var active: Bool
        /// In units of 0.625 ms.
        package var interval: UInt16
        package var window: UInt16
        package var ownAddressType: LEOwnAddressType
        package var filterDuplicates: Bool
        /// The primary PHYs (extended scanning).
        package var phys: LEPHYs

        package init(extended: Bool, active: Bool, interval: UInt16, window: UInt16, ownAddressType: LEOwnAddressType,
                     filterDuplicates: Bool, phys: LEPHYs) {
            self.extended = extended
            self.active = active
            self.interval = interval
            self.window = min(window, interval)
            self.ownAddressType = ownAddressType
            self.filterDuplicates = filterDuplicates
            self.phys = phys
        }
    }

    package enum Step: Hashable, Sendable {
        /// Set the parameters and enable scanning; `stopping` the scan running now first (the
        /// parameters cannot change while it runs).
        case start(Settings, stopping: Settings?)
        /// Disable the scan running now.
        case stop(Settings)
    }

    private var clients: [UInt64: Settings] = [:]
    /// Clients that no step has served yet.
    private var unconfirmed: Set<UInt64> = []
    /// What the controller runs, as far as this host knows; nil while not scanning.
    package private(set) var running: Settings?
    /// What the controller may still run after a step failed (nil when it is known to be off).
    private var stale: Settings?
    private var inFlight: Step?

    package init() {}

    package var clientCount: Int { clients.count }

    /// A client asks for `settings` (or changes what it asked for). Refused when the scan the
    /// others run cannot also serve it: legacy and extended commands cannot be mixed, and a scan
    /// has one own address type.
    package mutating func join(_ client: UInt64, _ settings: Settings) throws(HCIError) {
        if let other = clients.first(where: { $0.key != client })?.value,
           other.extended != settings.extended || other.ownAddressType != settings.ownAddressType {
            throw .scanConflict(extended: other.extended, ownAddressType: other.ownAddressType)
        }
        clients[client] = settings
        unconfirmed.insert(client)
    }

    /// A client is done; the scan stops when it was the last.
    package mutating func leave(_ client: UInt64) {
        clients[client] = nil
        unconfirmed.remove(client)
    }

    /// Whether `client` has been served by a step that succeeded (false once dropped).
    package func isServed(_ client: UInt64) -> Bool {
        clients[client] != nil && !unconfirmed.contains(client)
    }

    /// The scan the clients want: their merge, nil when nobody scans.
    package var wanted: Settings? {
        guard var merged = clients.values.first else { return nil }
        for settings in clients.values {
            merged.active = merged.active || settings.active
            merged.interval = min(merged.interval, settings.interval)
            merged.window = max(merged.window, settings.window)
            merged.filterDuplicates = merged.filterDuplicates && settings.filterDuplicates
            merged.phys.formUnion(settings.phys)
        }
        merged.window = min(merged.window, merged.interval)
        return merged
    }

    /// The next step to run, nil when the controller runs what is wanted (or a step runs).
    package mutating func nextStep() -> Step? {
        guard inFlight == nil else { return nil }
        let step: Step?
        if let wanted {
            if let now = running, clients.values.allSatisfy({ Self.serves(now, $0) }) {
                // The running scan serves everyone: whoever joined asking for no more is served.
                unconfirmed.removeAll()
                step = nil
            } else {
                step = .start(wanted, stopping: running ?? stale)
            }
        } else {
            // Nobody scans. A scan that may linger after a failure is not chased: the next start
            // disables it first.
            step = running.map { .stop($0) }
        }
        inFlight = step
        return step
    }

    /// The step ran: the controller runs what it set, and the clients it was for are served.
    package mutating func stepSucceeded() {
        guard let step = inFlight else { return }
        inFlight = nil
        switch step {
        case .start(let settings, _):
            running = settings
            // Those whose request the step carried; a client that changed since waits for the next.
            unconfirmed = unconfirmed.filter { clients[$0].map { !Self.serves(settings, $0) } ?? false }
        case .stop:
            running = nil
        }
        stale = nil
    }

    /// The clients a failed step dropped: those it was for, still waiting to be served, or, when
    /// it was for none (a restart for clients already served), every client.
    package struct Dropped: Equatable, Sendable {
        package var joining: [UInt64] = []
        package var served: [UInt64] = []

        package init(joining: [UInt64] = [], served: [UInt64] = []) {
            self.joining = joining
            self.served = served
        }
    }

    /// The step failed: the controller may be scanning or not (a failed start may have stopped
    /// the scan before it, or not), so the next start disables first.
    package mutating func stepFailed() -> Dropped {
        guard let step = inFlight else { return Dropped() }
        inFlight = nil
        switch step {
        case .start(let settings, let stopping): stale = running ?? stopping ?? settings
        case .stop(let settings): stale = settings
        }
        running = nil
        guard case .start = step else { return Dropped() }
        let dropped = unconfirmed.isEmpty
            ? Dropped(served: clients.keys.sorted()) : Dropped(joining: unconfirmed.sorted())
        for client in dropped.joining + dropped.served { leave(client) }
        return dropped
    }

    /// The controller closed: nothing runs, nobody is served.
    package mutating func reset() {
        clients = [:]
        unconfirmed = []
        running = nil
        stale = nil
        inFlight = nil
    }

    /// Whether a scan run with `running` gives a client what it asked for.
    private static func serves(_ running: Settings, _ asked: Settings) -> Bool {
        running.extended == asked.extended && running.ownAddressType == asked.ownAddressType
            && (running.active || !asked.active) && running.interval <= asked.interval
            // At least the share of time listening asked for (window over interval).
            && UInt32(running.window) * UInt32(asked.interval) >= UInt32(asked.window) * UInt32(running.interval)
            && running.phys.isSuperset(of: asked.phys) && (!running.filterDuplicates || asked.filterDuplicates)
    }
}
