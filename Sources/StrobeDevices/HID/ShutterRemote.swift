import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// A Bluetooth shutter remote, keyboard or presenter used as a trigger: a HID-over-GATT device
/// whose key and consumer-control usages become press and release events, each stamped with
/// the host time its bytes were read. Which usages are the shutter, a half-press or anything
/// else comes from a `UsageMap` (default: Volume Up and Enter are the shutter, as the common
/// "AB Shutter3" remotes send). Events reach a handler on the receive path (for the sequencer)
/// and any number of async streams, as the grip's do, and go on across the reconnections of a
/// bonded remote (`keepConnected`).
public final class ShutterRemote: Sendable {
    /// Called on the transport's reader thread with each event: return quickly, do not block.
    public typealias EventHandler = @Sendable (ShutterRemoteEvent) -> Void

    /// What a usage means to the application, as the `UsageMap` says.
    public enum Role: String, Sendable, Hashable {
        /// `shutter` takes the photo, `halfPress` (raw value `half-press`) focuses, `other` is any
        /// other key.
        case shutter, halfPress = "half-press", other
    }

    /// Which usages are the shutter and which a half-press; every other usage has role `.other`.
    public struct UsageMap: Sendable, Hashable {
        /// The usages that take the photo; Volume Up and Enter by default.
        public var shutter: Set<HIDUsage>
        /// The usages that focus (a half-press); none by default.
        public var halfPress: Set<HIDUsage>

        /// A map with these shutter usages (Volume Up and Enter by default) and half-press usages
        /// (none by default).
        public init(shutter: Set<HIDUsage> = [.volumeUp, .enter], halfPress: Set<HIDUsage> = []) {
            self.shutter = shutter
            self.halfPress = halfPress
        }

        /// `.shutter` when `usage` is in `shutter` (which wins over `halfPress`), `.halfPress` when it
        /// is in `halfPress`, else `.other`.
        public func role(of usage: HIDUsage) -> Role {
            shutter.contains(usage) ? .shutter : halfPress.contains(usage) ? .halfPress : .other
        }
    }

    /// What discovery found: the input reports, their layouts and handles.
    public let device: HIDDevice
    /// The usage map given to `attach`, fixed for the remote's life.
    public let map: UsageMap
    private let handler: ReaderHandoff<HandlerSlot>
    private let broadcast = AsyncBroadcast<ShutterRemoteEvent>()
    private let linkChanges = AsyncBroadcast<LEConnection>()
    private let counts = Counts()
    private let link: Lock<Link>

    private struct Link {
        var connection: LEConnection
        var lastError: HIDError?
    }

    private final class HandlerSlot: Sendable {
        let handler: EventHandler?
        init(_ handler: EventHandler?) { self.handler = handler }
    }

    private struct Counts: ~Copyable, Sendable {
        let reports = Atomic<UInt64>(0)
        let malformed = Atomic<UInt64>(0)
    }

    /// Secures the link (a bond's key, else pairing), reads the HID device and subscribes to
    /// its input reports.
    public static func attach(to connection: LEConnection, map: UsageMap = UsageMap(), handler: EventHandler? = nil) async throws(HIDError) -> ShutterRemote {
        let device = try await HIDDevice.discover(on: connection)
        let remote = ShutterRemote(connection: connection, device: device, map: map, handler: handler)
        remote.route(connection.gatt)
        try await device.start(connection.gatt)
        return remote
    }

    init(connection: LEConnection, device: HIDDevice, map: UsageMap, handler: EventHandler?) {
        self.device = device
        self.map = map
        self.handler = ReaderHandoff(HandlerSlot(handler))
        link = Lock(Link(connection: connection))
    }

    /// The link the remote is on: a new one after each reconnection.
    public var connection: LEConnection { link.withLock { $0.connection } }
    /// The GATT client of the current link.
    public var gatt: GATTClient { connection.gatt }
    /// Why `keepConnected` stopped reconnecting, or the last attempt that failed.
    public var lastError: HIDError? { link.withLock { $0.lastError } }

    /// Each new link after a reconnection.
    public func reconnections() -> AsyncStream<LEConnection> { linkChanges.stream() }

    /// Replaces the receive-path handler; `nil` removes it.
    public func setEventHandler(_ handler: EventHandler?) { self.handler.offer(HandlerSlot(handler)) }

    /// Every event from now on, in order.
    public func events() -> AsyncStream<ShutterRemoteEvent> { broadcast.stream() }

    /// Input reports received, and those shorter than their layout (dropped).
    public var counters: (reports: UInt64, malformed: UInt64) {
        (counts.reports.load(ordering: .relaxed), counts.malformed.load(ordering: .relaxed))
    }

    /// Connects the bonded remote again once its link has ended (while it is up, does nothing):
    /// found under its identity address or any private address its bond resolves, its reports
    /// routed to this remote before the link is encrypted with the bond's key (the remote may
    /// report at once), its database checked against the one it was read with (a changed one
    /// throws `HIDError.databaseChanged`), then its protocol mode and notifications set again. The
    /// handler and the streams carry on. Throws `.link` with `SecurityError.noBond` for a remote
    /// that did not bond, with `ConnectionError` when it did not show up within `scanTimeout` or
    /// the connection failed, or with the encryption's `SecurityError`.
    public func reconnect(using central: Central, scanTimeout: Duration = .seconds(5)) async throws(HIDError) {
        try await filing(HIDError.init(filing:)) { try await reconnecting(using: central, scanTimeout: scanTimeout) }
    }

    private func reconnecting(using central: Central, scanTimeout: Duration) async throws {
        let old = connection
        guard !old.isConnected else { return }
        guard let identity = old.bond?.peer.address else { throw SecurityError.noBond(address: old.peerAddress) }
        let new = try await central.connect(bonded: identity, scanTimeout: scanTimeout) { [self] in route($0.gatt) }
        do {
            // The handles routed were the last link's: the bond's cache and the remote's
            // Database Hash say whether they still hold.
            guard device.isDescribed(by: try await new.discoverDatabase()) else { throw HIDError.databaseChanged }
            try await device.start(new.gatt)
        } catch {
            _ = try? await new.disconnect()
            throw error
        }
        link.withLock { $0.connection = new }
        linkChanges.yield(new)
    }

    /// Keeps the remote connected until the task is cancelled: each time its link ends (a
    /// remote that sleeps when idle ends it itself, and advertises again at the next press),
    /// `reconnect` is tried until it succeeds, a second apart after a failure other than not
    /// showing up. Returns early, with `lastError`, when reconnecting cannot succeed: the remote
    /// did not bond, refused the bond's key, or the controller closed.
    public func keepConnected(using central: Central, scanTimeout: Duration = .seconds(5)) async {
        while !Task.isCancelled {
            _ = await connection.disconnected()
            while !Task.isCancelled {
                do {
                    try await reconnect(using: central, scanTimeout: scanTimeout)
                    break
                } catch {
                    link.withLock { $0.lastError = error }
                    if Self.endsReconnecting(error) || central.controller.closeError != nil { return }
                    if case .link(.connection(.notFound)) = error { continue }
                    try? await central.controller.sleep(for: .seconds(1))
                }
            }
        }
    }

    /// No bond, or the remote no longer has it: trying again cannot help.
    private static func endsReconnecting(_ error: HIDError) -> Bool {
        switch error {
        case .link(.security(.noBond)), .databaseChanged: true
        case .link(.security(.encryptionFailed(_, .pinOrKeyMissing))), .link(.security(.encryptionFailed(_, .authenticationFailure))): true
        default: false
        }
    }

    /// Reads Battery Level (`2A19`) on the current link. Throws `HIDError.noBatteryLevel` when
    /// the remote has none, `.malformedBatteryLevel` for a malformed value, or `.link` with the
    /// GATT read's error.
    public func batteryLevel() async throws(HIDError) -> BatteryLevel {
        guard let handle = device.batteryLevelHandle else { throw HIDError.noBatteryLevel }
        return try await filing(HIDError.init(filing:)) {
            let bytes = try await gatt.read(handle: handle)
            return try bytes.withUnsafeBytes { raw in try BatteryLevel(decoding: raw) }
        }
    }

    /// Each input report's values on `gatt` to a listener of its own (a new link starts with
    /// every key up).
    private func route(_ gatt: GATTClient) {
        device.route(gatt) { ReportListener(remote: self, layout: $0.layout) }
    }

    /// `roles[i]` is the role of `tracker.usages[i]`, looked up once when subscribing.
    fileprivate func received(_ value: UnsafeRawBufferPointer, tracker: inout HIDUsageTracker, roles: [Role], at time: HostTime) {
        counts.reports.add(1, ordering: .relaxed)
        handler.current()?._withUnsafeGuaranteedRef { slot in
            let handler = slot.handler
            let usages = tracker.usages
            let ok = tracker.update(value) { position, down in
                let event = ShutterRemoteEvent(kind: down ? .press : .release, usage: usages[position], role: roles[position],
                                               receivedAt: time)
                handler?(event)
                broadcast.yield(event)
            }
            if !ok { counts.malformed.add(1, ordering: .relaxed) }
        }
    }

    /// One input report's values, on the receive path: the tracker is its own.
    private final class ReportListener: ATTValueHandler, @unchecked Sendable {
        let remote: ShutterRemote
        private var tracker: HIDUsageTracker
        private let roles: [Role]

        init(remote: ShutterRemote, layout: HIDReportDescriptor.Report) {
            self.remote = remote
            tracker = HIDUsageTracker(layout)
            roles = tracker.usages.map(remote.map.role(of:))
        }

        func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) {
            remote.received(value, tracker: &tracker, roles: roles, at: time)
        }
    }
}

/// A key or button of a shutter remote going down or coming up.
public struct ShutterRemoteEvent: Sendable, Hashable {
    /// Whether the key went down (`press`) or came up (`release`).
    public enum Kind: String, Sendable, Hashable { case press, release }

    /// `.press` when the key went down, `.release` when it came up.
    public var kind: Kind
    /// The HID usage of the key or button, e.g. `consumer:0x00e9` (Volume Up).
    public var usage: HIDUsage
    /// The usage's role in the remote's `UsageMap`.
    public var role: ShutterRemote.Role
    /// When the report's bytes were read from the transport.
    public var receivedAt: HostTime

    /// An event of `kind` for `usage` with `role`, its bytes read at `receivedAt`.
    public init(kind: Kind, usage: HIDUsage, role: ShutterRemote.Role, receivedAt: HostTime) {
        self.kind = kind
        self.usage = usage
        self.role = role
        self.receivedAt = receivedAt
    }
}
