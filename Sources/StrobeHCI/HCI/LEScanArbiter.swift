/// The controller runs one scan; any number of clients (scanners) ask for one. This machine,
/// without I/O, keeps what each client asked for and what the controller runs, and says what to
/// send next: the scan wanted is the clients' merge (active if any is, the shortest interval,
/// the longest window within it, the union of PHYs, the controller's duplicate filter only if
/// every client accepts it), and scanning is enabled while anyone scans.
///
/// Its owner (`LEScanOwner`) runs one step at a time and reports how it went; a step that fails
/// drops the clients it was for (those not yet confirmed by a step that succeeded), and when
/// there are none such, every client: their scans cannot be what they asked for.
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
        let wanted = wanted
        let step: Step?
        switch (running, wanted) {
        case (nil, nil): step = nil
        case (let now?, nil): step = .stop(now)
        case (let now, let wanted?):
            if now == wanted {
                // Already running as wanted: whoever joined asking for no change is served.
                unconfirmed.removeAll()
                step = nil
            } else {
                step = .start(wanted, stopping: now)
            }
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
    }

    /// The step failed: the controller's scan is taken to be off (a failed start may have
    /// stopped the one before it). Returns the clients dropped: the ones not yet served, or,
    /// when all were, every client.
    package mutating func stepFailed() -> [UInt64] {
        guard let step = inFlight else { return [] }
        inFlight = nil
        running = nil
        guard case .start = step else { return [] }
        let dropped = unconfirmed.isEmpty ? Array(clients.keys) : Array(unconfirmed)
        for client in dropped { leave(client) }
        return dropped.sorted()
    }

    /// The controller closed: nothing runs, nobody is served.
    package mutating func reset() {
        clients = [:]
        unconfirmed = []
        running = nil
        inFlight = nil
    }

    /// Whether a scan run with `running` gives a client what it asked for.
    private static func serves(_ running: Settings, _ asked: Settings) -> Bool {
        running.extended == asked.extended && running.ownAddressType == asked.ownAddressType
            && (running.active || !asked.active) && running.interval <= asked.interval
            && running.phys.isSuperset(of: asked.phys) && (!running.filterDuplicates || asked.filterDuplicates)
    }
}
