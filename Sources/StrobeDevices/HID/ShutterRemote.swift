import StrobeHCI
import StrobeHost
import Synchronization

/// A Bluetooth shutter remote, keyboard or presenter used as a trigger: a HID-over-GATT device
/// whose key and consumer-control usages become press and release events, each stamped with
/// the host time its bytes were read. Which usages are the shutter, a half-press or anything
/// else comes from a `UsageMap` (default: Volume Up and Enter are the shutter, as the common
/// "AB Shutter3" remotes send). Events reach a handler on the receive path (for the sequencer)
/// and any number of async streams, as the grip's do.
public final class ShutterRemote: Sendable {
    public typealias EventHandler = @Sendable (ShutterRemoteEvent) -> Void

    public enum Role: String, Sendable, Hashable {
        case shutter, halfPress = "half-press", other
    }

    public struct UsageMap: Sendable, Hashable {
        public var shutter: Set<HIDUsage>
        public var halfPress: Set<HIDUsage>

        public init(shutter: Set<HIDUsage> = [.volumeUp, .enter], halfPress: Set<HIDUsage> = []) {
            self.shutter = shutter
            self.halfPress = halfPress
        }

        public func role(of usage: HIDUsage) -> Role {
            shutter.contains(usage) ? .shutter : halfPress.contains(usage) ? .halfPress : .other
        }
    }

    public let gatt: GATTClient
    public let device: HIDDevice
    public let map: UsageMap
    private let handler: ReaderHandoff<HandlerSlot>
    private let broadcast = AsyncBroadcast<ShutterRemoteEvent>()
    private let counts = Counts()

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
    public static func attach(to connection: LEConnection, map: UsageMap = UsageMap(), handler: EventHandler? = nil) async throws -> ShutterRemote {
        let device = try await HIDDevice.discover(on: connection)
        let remote = ShutterRemote(gatt: connection.gatt, device: device, map: map, handler: handler)
        try await device.subscribe(connection.gatt) { report in ReportListener(remote: remote, layout: report.layout) }
        return remote
    }

    init(gatt: GATTClient, device: HIDDevice, map: UsageMap, handler: EventHandler?) {
        self.gatt = gatt
        self.device = device
        self.map = map
        self.handler = ReaderHandoff(HandlerSlot(handler))
    }

    public func setEventHandler(_ handler: EventHandler?) { self.handler.offer(HandlerSlot(handler)) }

    /// Every event from now on, in order.
    public func events() -> AsyncStream<ShutterRemoteEvent> { broadcast.stream() }

    /// Input reports received, and those shorter than their layout (dropped).
    public var counters: (reports: UInt64, malformed: UInt64) {
        (counts.reports.load(ordering: .relaxed), counts.malformed.load(ordering: .relaxed))
    }

    public func batteryLevel() async throws -> BatteryLevel {
        guard let handle = device.batteryLevelHandle else { throw HIDSetupError.noBatteryLevel }
        let bytes = try await gatt.read(handle: handle)
        return try bytes.withUnsafeBytes { raw in try BatteryLevel(decoding: raw) }
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
    public enum Kind: String, Sendable, Hashable { case press, release }

    public var kind: Kind
    public var usage: HIDUsage
    public var role: ShutterRemote.Role
    /// When the report's bytes were read from the transport.
    public var receivedAt: HostTime

    public init(kind: Kind, usage: HIDUsage, role: ShutterRemote.Role, receivedAt: HostTime) {
        self.kind = kind
        self.usage = usage
        self.role = role
        self.receivedAt = receivedAt
    }
}
