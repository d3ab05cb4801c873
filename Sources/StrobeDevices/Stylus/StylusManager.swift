import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// Finds and connects every pressure stylus in range (advertised names starting with `Pen`) and
/// keeps the list of connected ones, each with its identifiers, power level, buttons and
/// side-button map; `stop()` disconnects them.
public final class StylusManager: Sendable {
    /// Whether a stylus's link is encrypted.
    public enum PairingState: String, Sendable, Hashable {
        /// The link is not encrypted.
        case notPaired
        /// The link is encrypted (paired now, or with a bond's key).
        case paired
    }

    /// A stylus that `start()` connected, with what identifies it.
    public struct ConnectedStylus: Sendable {
        /// The stylus's Bluetooth address: the identifier this host knows it by.
        public var identifier: BluetoothAddress
        /// The pen's own identifier (Serial Number), when it has one.
        public var penIdentifier: String?
        /// The advertised local name, starting with `Pen`.
        public var name: String
        /// The stylus, ready to be drained.
        public var stylus: Stylus
        /// The LE connection to the pen.
        public var connection: LEConnection

        /// As the link is now.
        public var pairing: PairingState { connection.securityLevel == .none ? .notPaired : .paired }
    }

    /// The central that scans and connects.
    public let central: Central
    /// How long each `start()` scans; 1 s by default.
    public let scanDuration: Duration
    private let state = Lock<[ConnectedStylus]>([])

    /// A manager with no stylus connected whose `start()` scans for `scanDuration` (1 s by default).
    package init(central: Central, scanDuration: Duration = .seconds(1)) {
        self.central = central
        self.scanDuration = scanDuration
    }

    /// The styluses still connected, in the order they were connected.
    public var styluses: [ConnectedStylus] { state.withLock { $0.filter { $0.connection.isConnected } } }

    /// One scan, then connects every stylus found that is not connected yet. Returns the list.
    @discardableResult
    public func start() async throws(StylusError) -> [ConnectedStylus] {
        try await filing(StylusError.init(filing:)) { try await connectingNew() }
    }

    private func connectingNew() async throws -> [ConnectedStylus] {
        let found = try await central.scanner().scan(for: scanDuration)
        let known = Set(styluses.map(\.identifier))
        for device in found where device.name?.hasPrefix(StylusProfile.localNamePrefix) == true && !known.contains(device.address) {
            let connection = try await central.connect(to: device.address, addressType: device.addressType)
            let stylus = try await Stylus.attach(to: connection.gatt)
            state.withLock {
                $0.append(ConnectedStylus(identifier: device.address, penIdentifier: stylus.penIdentifier, name: device.name ?? "",
                                          stylus: stylus, connection: connection))
            }
        }
        return styluses
    }

    /// Disconnects every stylus, even when one fails to; the first failure is thrown after.
    public func stop() async throws(StrobeError) {
        let all = state.withLock { list -> [ConnectedStylus] in
            defer { list.removeAll() }
            return list
        }
        try await all.map(\.connection).disconnectAll()
    }
}

extension Stylus {
    /// The buttons held in the last sample drained.
    public var buttons: StylusButtons { consumerButtons }

    /// The power level, read from the pen (Battery Level).
    public func powerLevel() async throws(StylusError) -> BatteryLevel { try await batteryLevel() }
}
