import StrobeHCI
import StrobeHost
import Synchronization

/// One connected camera grip (reference profile v1): its firmware checked against the host's
/// minimum, its button events decoded as they arrive and handed to a handler on the receive path
/// (for the shutter, where every microsecond counts) and to any number of async streams.
public final class Grip: ATTValueHandler, Sendable {
    /// Called on the transport's reader thread with each event: return quickly, do not block.
    public typealias EventHandler = @Sendable (GripEventOccurrence) -> Void

    /// The GATT client of the grip's link, for reads and writes beyond the events.
    public let gatt: GATTClient
    /// The Firmware Revision the grip reported, when it has Device Information.
    public let firmware: FirmwareVersion?
    let batteryHandle: AttributeHandle?
    /// The decoder, owned by the receive path (one notification at a time, in order).
    /// Behind a pointer, as the link keeps its reassembly: a stored `var` would cost a dynamic
    /// exclusivity check (thread-local state) on every notification, on a trigger's path.
    nonisolated(unsafe) private let decoder: UnsafeMutablePointer<GripEventDecoder>
    /// The receive-path handler, handed to the reader so that it calls it with no lock.
    private let handler: ReaderHandoff<HandlerSlot>
    /// The decoder's counters as of its last notification, for readers off the receive path.
    private let counts = Counts()

    /// Not a generic box: a closure stored as a generic value would be re-wrapped (allocated)
    /// on every call.
    private final class HandlerSlot: Sendable {
        let handler: EventHandler?
        init(_ handler: EventHandler?) { self.handler = handler }
    }

    private struct Counts: ~Copyable, Sendable {
        let notifications = Atomic<UInt64>(0)
        let records = Atomic<UInt64>(0)
        let lostRecords = Atomic<UInt64>(0)
        let outOfOrderRecords = Atomic<UInt64>(0)
        let unknownEvents = Atomic<UInt64>(0)
        let malformedNotifications = Atomic<UInt64>(0)

        func store(_ counters: GripEventDecoder.Counters) {
            notifications.store(counters.notifications, ordering: .relaxed)
            records.store(counters.records, ordering: .relaxed)
            lostRecords.store(counters.lostRecords, ordering: .relaxed)
            outOfOrderRecords.store(counters.outOfOrderRecords, ordering: .relaxed)
            unknownEvents.store(counters.unknownEvents, ordering: .relaxed)
            malformedNotifications.store(counters.malformedNotifications, ordering: .relaxed)
        }

        var counters: GripEventDecoder.Counters {
            var counters = GripEventDecoder.Counters()
            counters.notifications = notifications.load(ordering: .relaxed)
            counters.records = records.load(ordering: .relaxed)
            counters.lostRecords = lostRecords.load(ordering: .relaxed)
            counters.outOfOrderRecords = outOfOrderRecords.load(ordering: .relaxed)
            counters.unknownEvents = unknownEvents.load(ordering: .relaxed)
            counters.malformedNotifications = malformedNotifications.load(ordering: .relaxed)
            return counters
        }
    }

    private let broadcast = AsyncBroadcast<GripEventOccurrence>()

    /// Finds the grip service, checks the firmware revision (a grip older than `requirement` is
    /// refused with `GripError.firmwareTooOld`, naming both versions) and subscribes to events.
    /// The link must be encrypted already or be encrypted by the escalation when the grip asks.
    public static func attach(
        to gatt: GATTClient, requirement: GripFirmwareRequirement = GripFirmwareRequirement(),
        handler: EventHandler? = nil
    ) async throws(GripError) -> Grip {
        try await filing(GripError.init(filing:)) {
            let database = try await gatt.discoverDatabase(subscribeToServiceChanged: false)
            return try await attach(gatt, database: database, requirement: requirement, handler: handler) {}
        }
    }

    /// As `attach(to:)` on a link this call secures: an unbonded grip is paired first; a bonded
    /// one's database comes from its bond while its Database Hash is unchanged, and its events
    /// are routed before the link is encrypted with the bond's key, since the grip sets its
    /// subscription again then and may send at once.
    public static func attach(
        to connection: LEConnection, requirement: GripFirmwareRequirement = GripFirmwareRequirement(),
        handler: EventHandler? = nil
    ) async throws(GripError) -> Grip {
        try await filing(GripError.init(filing:)) {
            if connection.bond == nil, connection.securityLevel == .none { _ = try await connection.pair() }
            let database = try await connection.discoverDatabase()
            return try await attach(connection.gatt, database: database, requirement: requirement, handler: handler) {
                if connection.securityLevel == .none { try await connection.encrypt() }
            }
        }
    }

    private static func attach(
        _ gatt: GATTClient, database: GATTDatabase, requirement: GripFirmwareRequirement, handler: EventHandler?,
        securing: () async throws -> Void
    ) async throws -> Grip {
        guard let gripService = database.service(GripProfile.service) else {
            throw GripError.notAGrip(services: database.services.map(\.service.uuid.description))
        }
        guard let events = gripService.characteristic(GripProfile.events)?.characteristic else {
            throw GripError.missingCharacteristic(GripProfile.events)
        }
        var firmware: FirmwareVersion?
        if let revision = database.characteristic(GripProfile.firmwareRevision, inService: GripProfile.deviceInformationService) {
            let bytes = try await gatt.read(handle: revision.characteristic.valueHandle)
            try bytes.withUnsafeBytes { raw in try requirement.check(revision: raw) }
            firmware = bytes.withUnsafeBytes { try? FirmwareVersion(decoding: $0) }
        }
        let battery = database.characteristic(GripProfile.batteryLevel, inService: GripProfile.batteryService)
        let grip = Grip(gatt: gatt, firmware: firmware, batteryHandle: battery?.characteristic.valueHandle, handler: handler)
        gatt.bearer.setValueHandler(grip, forHandle: events.valueHandle)
        try await securing()
        try await gatt.subscribe(events, to: .notification, handler: grip)
        return grip
    }

    init(gatt: GATTClient, firmware: FirmwareVersion?, batteryHandle: AttributeHandle?, handler: EventHandler?) {
        self.gatt = gatt
        self.firmware = firmware
        self.batteryHandle = batteryHandle
        self.handler = ReaderHandoff(HandlerSlot(handler))
        decoder = .allocate(capacity: 1)
        decoder.initialize(to: GripEventDecoder())
    }

    deinit {
        decoder.deinitialize(count: 1)
        decoder.deallocate()
    }

    /// Replaces the receive-path handler.
    public func setEventHandler(_ handler: EventHandler?) {
        self.handler.offer(HandlerSlot(handler))
    }

    /// Every event from now on, in order.
    public func events() -> AsyncStream<GripEventOccurrence> { broadcast.stream() }

    /// Records, losses (sequence gaps), unknown codes and malformed notifications so far.
    package var counters: GripEventDecoder.Counters { counts.counters }

    /// Reads the Battery Level characteristic (`2A19`). Throws `GripError.missingCharacteristic`
    /// when the grip has no Battery service, `.malformedBatteryLevel` for a malformed value, or
    /// `.link` with the GATT read's error.
    public func batteryLevel() async throws(GripError) -> BatteryLevel {
        guard let batteryHandle else { throw GripError.missingCharacteristic(GripProfile.batteryLevel) }
        return try await filing(GripError.init(filing:)) {
            let bytes = try await gatt.read(handle: batteryHandle)
            return try bytes.withUnsafeBytes { raw in try BatteryLevel(decoding: raw) }
        }
    }

    /// Decodes one Events notification on the receive path and passes each record, in order, to
    /// the event handler and the `events()` streams; a malformed notification is counted and dropped.
    public func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) {
        // Only the receive path calls this, one notification at a time: the decoder and the
        // handler are its own, so events reach the handler in order with no lock taken first.
        // The handler slot is never nil (setting no handler offers a slot holding nil).
        handler.current()?._withUnsafeGuaranteedRef { slot in
            _ = try? decoder.pointee.decode(value) { record, counters in
                // Counted before it is handed on: whoever sees the event sees it counted.
                counts.store(counters)
                let occurrence = GripEventOccurrence(event: record.event, sequence: record.sequence, receivedAt: time)
                // Called where it sits in the slot (no copy of the closure, no reference count).
                slot.handler?(occurrence)
                broadcast.yield(occurrence)
            }
        }
        counts.store(decoder.pointee.counters)
    }
}

/// A grip event with its record sequence number and when its bytes were read from the transport.
public struct GripEventOccurrence: Sendable, Hashable {
    /// What the grip's control did: shutter, dial, Fn button or zoom lever.
    public var event: GripEvent
    /// The record's sequence number (counts records, wraps 65535 -> 0); a gap means records were
    /// lost.
    public var sequence: UInt16
    /// When the notification's bytes were read from the transport (monotonic host time).
    public var receivedAt: HostTime

    /// An occurrence of `event` in the record numbered `sequence`, received at `receivedAt`.
    public init(event: GripEvent, sequence: UInt16, receivedAt: HostTime) {
        self.event = event
        self.sequence = sequence
        self.receivedAt = receivedAt
    }
}
