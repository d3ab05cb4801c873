import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// One connected pressure stylus (reference profile v1). Sample batches go from the transport's
/// reader thread into a lock-free ring (copied once, nothing allocated); the application pulls
/// them when it is ready to draw, so it never receives them more often than it asks. They come
/// as notifications (`attach(to:)`) or over an LE credit-based channel (`attachOverChannel(to:)`).
public final class Stylus: ATTValueHandler, Sendable {
    /// The GATT client of the pen's link.
    public let gatt: GATTClient
    /// The pen's identifier (Serial Number), when it has Device Information.
    public let penIdentifier: String?
    /// Batches waiting for the consumer; its counters say how many were dropped when it was full.
    public let ring: NotificationRing
    let buttonMapHandle: AttributeHandle?
    let batteryHandle: AttributeHandle?
    /// The channel the batches come on, when they do not come as notifications.
    public let channel: L2CAPChannel?
    private let consumer: Lock<Consumer>

    /// Consumer-side state: touched by `drain` only.
    private struct Consumer {
        var decoder: StylusSampleDecoder
        var stroke = StylusStrokeTracker()
    }

    /// Finds the stylus service, reads the pen identifier and the button map, and subscribes
    /// to samples. `ringCapacity` batches can wait between two drains before drops are counted.
    public static func attach(to gatt: GATTClient, ringCapacity: Int = 1024) async throws(StylusError) -> Stylus {
        try await filing(StylusError.init(filing:)) {
            let (stylus, samples) = try await discover(gatt, ringCapacity: ringCapacity, channel: nil)
            try await gatt.subscribe(samples, to: .notification, handler: stylus)
            return stylus
        }
    }

    /// Like `attach(to:)`, but the batches come over the LE credit-based channel the pen names
    /// in its Samples PSM characteristic, one per SDU, handed from the link's reader thread
    /// straight into the ring: no ATT header, no subscription. As with notifications, the ring
    /// decouples the app: the channel's credits go back as each batch is in the ring, and a
    /// full ring drops (counted) rather than holding the pen back. Throws `notAStylus`,
    /// `missingCharacteristic(samplesPSM)` when the pen has no channel, `.link(.l2cap(_))` when
    /// it refuses one.
    public static func attachOverChannel(to connection: LEConnection, ringCapacity: Int = 1024) async throws(StylusError) -> Stylus {
        try await filing(StylusError.init(filing:)) { try await attachingOverChannel(to: connection, ringCapacity: ringCapacity) }
    }

    private static func attachingOverChannel(to connection: LEConnection, ringCapacity: Int) async throws -> Stylus {
        let peer = try await PeerServices.discover(connection.gatt)
        guard let stylusService = peer.service(StylusProfile.service) else {
            throw StylusError.notAStylus(services: peer.uuidDescriptions)
        }
        guard let characteristic = try await peer.characteristic(StylusProfile.samplesPSM, in: stylusService) else {
            throw StylusError.missingCharacteristic(StylusProfile.samplesPSM)
        }
        let value = try await connection.gatt.read(handle: characteristic.valueHandle)
        guard value.count == 2 else { throw StylusError.malformedSamplesPSM(value) }
        let channel = try await connection.openChannel(psm: UInt16(value[0]) | UInt16(value[1]) << 8,
                                                       parameters: StylusProfile.channelParameters)
        do {
            let (stylus, samples) = try await discover(connection.gatt, peer: peer, ringCapacity: ringCapacity, channel: channel)
            // The ring and the handle only: the channel holds the handler, the stylus the channel.
            try channel.receive { [ring = stylus.ring, handle = samples.valueHandle] batch, time in
                _ = ring.tryPush(handle: handle, value: batch, at: time)
            }
            return stylus
        } catch {
            channel.close()
            throw error
        }
    }

    /// The stylus service, its pen identifier and button map, and the Samples characteristic.
    private static func discover(_ gatt: GATTClient, peer known: PeerServices? = nil, ringCapacity: Int, channel: L2CAPChannel?)
        async throws -> (Stylus, GATTCharacteristic) {
        let peer: PeerServices
        if let known { peer = known } else { peer = try await PeerServices.discover(gatt) }
        guard let stylusService = peer.service(StylusProfile.service) else {
            throw StylusError.notAStylus(services: peer.uuidDescriptions)
        }
        guard let samples = try await peer.characteristic(StylusProfile.samples, in: stylusService) else {
            throw StylusError.missingCharacteristic(StylusProfile.samples)
        }
        let buttonMapCharacteristic = try await peer.characteristic(StylusProfile.buttonMap, in: stylusService)
        var buttonMap = StylusButtonMap.unassigned
        if let handle = buttonMapCharacteristic?.valueHandle {
            buttonMap = try StylusButtonMap(decoding: try await gatt.read(handle: handle))
        }
        var penIdentifier: String?
        if let serial = try await peer.characteristic(StylusProfile.serialNumber, in: peer.service(StylusProfile.deviceInformationService)) {
            penIdentifier = String(decoding: try await gatt.read(handle: serial.valueHandle), as: UTF8.self)
        }
        let battery = try await peer.characteristic(StylusProfile.batteryLevel, in: peer.service(StylusProfile.batteryService))
        let stylus = Stylus(gatt: gatt, penIdentifier: penIdentifier, buttonMap: buttonMap,
                            buttonMapHandle: buttonMapCharacteristic?.valueHandle, batteryHandle: battery?.valueHandle,
                            channel: channel, ringCapacity: ringCapacity)
        return (stylus, samples)
    }

    init(gatt: GATTClient, penIdentifier: String?, buttonMap: StylusButtonMap, buttonMapHandle: AttributeHandle?,
         batteryHandle: AttributeHandle?, channel: L2CAPChannel? = nil, ringCapacity: Int) {
        self.gatt = gatt
        self.channel = channel
        self.penIdentifier = penIdentifier
        self.buttonMapHandle = buttonMapHandle
        self.batteryHandle = batteryHandle
        ring = NotificationRing(capacity: ringCapacity, maxValueSize: 512)
        consumer = Lock(Consumer(decoder: StylusSampleDecoder(buttonMap: buttonMap)))
    }

    // MARK: Receive path (reader thread)

    /// Copies one Samples notification into `ring` on the reader thread (a full ring drops it and
    /// counts the drop); decoding waits for `drain(maxBatches:_:)`.
    public func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) {
        _ = ring.tryPush(handle: handle, value: value, at: time)
    }

    // MARK: Consumer

    /// Decodes every batch waiting (up to `maxBatches`) and hands the events to `body`, in
    /// order, each stroke's samples marked began / continues / ended. Allocates nothing.
    /// Returns the number of batches consumed.
    @discardableResult
    public func drain(maxBatches: Int = .max, _ body: (StylusDrawingEvent) -> Void) -> Int {
        consumer.withLock { c in
            ring.drain(maxCount: maxBatches) { notification in
                _ = try? c.decoder.decode(notification.value, receivedAt: notification.timestamp) { event in
                    c.stroke.handle(event, body)
                }
            }
        }
    }

    var consumerButtons: StylusButtons { consumer.withLock { $0.decoder.buttons } }

    /// True while the tip touches: an app can reject palm touches meanwhile.
    public var isDrawing: Bool { consumer.withLock { $0.stroke.isDrawing } }

    /// Batches, samples, lost batches (sequence gaps), malformed batches, side-button actions.
    package var counters: StylusSampleDecoder.Counters { consumer.withLock { $0.decoder.counters } }

    /// The side-button map in use (read from the pen at attach, or as last written).
    public var buttonMap: StylusButtonMap { consumer.withLock { $0.decoder.buttonMap } }

    /// Reads the Button Map characteristic and applies it to the batches drained from then on.
    /// Throws `StylusError.missingCharacteristic` when the pen has none,
    /// `StylusError.malformedButtonMap` when the value is not 2 bytes, or `.link` with the GATT
    /// read's error.
    public func readButtonMap() async throws(StylusError) -> StylusButtonMap {
        guard let buttonMapHandle else { throw StylusError.missingCharacteristic(StylusProfile.buttonMap) }
        let map = try await filing(StylusError.init(filing:)) {
            try StylusButtonMap(decoding: try await gatt.read(handle: buttonMapHandle))
        }
        consumer.withLock { $0.decoder.buttonMap = map }
        return map
    }

    /// Writes `map` to the Button Map characteristic with a Write Request and, once written, applies
    /// it to the batches drained from then on. Throws `StylusError.missingCharacteristic` when
    /// the pen has none, or `.link` with the GATT write's error.
    public func writeButtonMap(_ map: StylusButtonMap) async throws(StylusError) {
        guard let buttonMapHandle else { throw StylusError.missingCharacteristic(StylusProfile.buttonMap) }
        try await filing(StylusError.init(filing:)) { try await gatt.write(map.encoded(), handle: buttonMapHandle) }
        consumer.withLock { $0.decoder.buttonMap = map }
    }

    /// Reads the Battery Level characteristic (`2A19`). Throws
    /// `StylusError.missingCharacteristic` when the pen has no Battery service,
    /// `.malformedBatteryLevel` for a malformed value, or `.link` with the GATT read's error.
    public func batteryLevel() async throws(StylusError) -> BatteryLevel {
        guard let batteryHandle else { throw StylusError.missingCharacteristic(StylusProfile.batteryLevel) }
        return try await filing(StylusError.init(filing:)) {
            let bytes = try await gatt.read(handle: batteryHandle)
            return try bytes.withUnsafeBytes { raw in try BatteryLevel(decoding: raw) }
        }
    }
}
