import StrobeHCI
import Synchronization

/// One LE connection: its parameters, its L2CAP link, and the ATT bearer and GATT client on it.
/// When the link goes down every pending ATT request fails with the disconnect's reason.
public final class LEConnection: Sendable, CustomStringConvertible {
    public let handle: UInt16
    public let peerAddress: BluetoothAddress
    public let peerAddressType: LEAddressType
    public let role: LERole
    public let bearer: ATTBearer
    public let gatt: GATTClient
    let link: L2CAPLink
    private let controller: HCIController
    private let clock: any Clock<Duration>
    private let state: Mutex<State>

    private struct State {
        var server: GATTServerConnection?
        var parameters: LEConnectionParametersInUse
        var disconnectReason: HCIStatus?
        var waiters: [CheckedContinuation<HCIStatus, Never>] = []
        var parameterUpdateRequests = 0
        var parameterUpdatesAccepted = 0
    }

    init(event: LEConnectionCompleteEvent, controller: HCIController, fragmentLength: Int,
         bearerConfiguration: ATTBearer.Configuration, clock: any Clock<Duration>) {
        handle = event.connectionHandle
        peerAddress = event.peerAddress
        peerAddressType = event.peerAddressType
        role = event.role
        self.controller = controller
        self.clock = clock
        link = L2CAPLink(controller: controller, handle: event.connectionHandle, fragmentLength: fragmentLength)
        bearer = ATTBearer(channel: link, configuration: bearerConfiguration, clock: clock)
        gatt = GATTClient(bearer: bearer)
        state = Mutex(State(parameters: LEConnectionParametersInUse(
            interval: event.connectionInterval, latency: event.peripheralLatency, supervisionTimeout: event.supervisionTimeout)))
        attachRoutes()
    }

    private func attachRoutes() {
        link.setRoutes { [bearer] routes in
            routes.att = { pdu, time in bearer.receive(pdu, at: time) }
            routes.signaling = { [weak self] packet in self?.signalingReceived(packet) }
        }
    }

    /// The GATT server this link serves, when this host is a peripheral (or serves both ways).
    public var server: GATTServerConnection? { state.withLock { $0.server } }

    /// Serves `database` to the peer on this link; returns the per-client server connection.
    @discardableResult
    public func serve(_ database: GATTAttributeDatabase) -> GATTServerConnection {
        let server = GATTServerConnection(database: database, channel: link, clock: clock)
        state.withLock { $0.server = server }
        // What a client sends (requests, commands, confirmations) goes to the server; what a
        // server sends (responses, notifications, indications) to this side's bearer.
        link.setRoutes { [bearer] routes in
            routes.att = { pdu, time in
                if let opcode = pdu.first, ATTOpcode(rawValue: opcode).isSentByClient {
                    server.receive(pdu, at: time)
                } else {
                    bearer.receive(pdu, at: time)
                }
            }
        }
        return server
    }

    public var description: String { "connection 0x\(String(handle, radix: 16)) to \(peerAddress) (\(peerAddressType))" }

    /// The parameters in use: from LE Connection Complete, then each LE Connection Update Complete.
    public var parameters: LEConnectionParametersInUse { state.withLock { $0.parameters } }

    /// `nil` while connected; the reason once disconnected.
    public var disconnectReason: HCIStatus? { state.withLock { $0.disconnectReason } }

    public var isConnected: Bool { disconnectReason == nil }

    /// Connection Parameter Update Requests the peer sent, and how many were accepted.
    public var parameterUpdateRequests: (received: Int, accepted: Int) {
        state.withLock { ($0.parameterUpdateRequests, $0.parameterUpdatesAccepted) }
    }

    /// L2CAP counters of this link: PDUs, reassembly errors, refused pairing, unknown channels.
    public var l2capCounters: L2CAPLinkCounters { link.counters }

    /// How long `disconnect` waits for Disconnection Complete before it closes the link itself.
    public static let disconnectionTimeout = Duration.seconds(5)

    /// Asks the controller to disconnect and waits for Disconnection Complete; a controller that
    /// never sends it does not hang the caller: after `disconnectionTimeout` the link is closed
    /// here, with Connection Terminated By Local Host.
    @discardableResult
    public func disconnect(reason: HCIStatus = .remoteUserTerminatedConnection) async throws -> HCIStatus {
        if let reason = disconnectReason { return reason }
        do {
            try await controller.send(HCIDisconnect(connectionHandle: handle, reason: reason))
        } catch HCIError.status(.unknownConnectionIdentifier) {
            // Already gone; Disconnection Complete is on its way or has been handled.
        }
        let watchdog = Task { [clock] in
            try await clock.sleep(for: Self.disconnectionTimeout)
            self.closed(reason: .connectionTerminatedByLocalHost)
        }
        defer { watchdog.cancel() }
        return await disconnected()
    }

    /// Waits until the link is down and returns the reason.
    public func disconnected() async -> HCIStatus {
        await withCheckedContinuation { continuation in
            let reason = state.withLock { s -> HCIStatus? in
                if let reason = s.disconnectReason { return reason }
                s.waiters.append(continuation)
                return nil
            }
            if let reason { continuation.resume(returning: reason) }
        }
    }

    // MARK: Driven by the central

    func receive(boundary: ACLPacketBoundary, payload: UnsafeRawBufferPointer, at time: HostTime) {
        link.receive(boundary: boundary, payload: payload, at: time)
    }

    func parametersUpdated(_ event: LEConnectionUpdateCompleteEvent) {
        guard event.status.isSuccess else { return }
        state.withLock {
            $0.parameters = LEConnectionParametersInUse(
                interval: event.connectionInterval, latency: event.peripheralLatency, supervisionTimeout: event.supervisionTimeout)
        }
    }

    func closed(reason: HCIStatus, transportClosed: Bool = false) {
        let waiters = state.withLock { s -> [CheckedContinuation<HCIStatus, Never>] in
            guard s.disconnectReason == nil else { return [] }
            s.disconnectReason = reason
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        bearer.close(transportClosed ? .transportClosed : .disconnected(hciReason: reason.rawValue))
        server?.close()
        link.close()
        for waiter in waiters { waiter.resume(returning: reason) }
    }

    // MARK: LE signalling (reader thread)

    private func signalingReceived(_ packet: LESignalingPacket) {
        switch LESignalingCode(rawValue: packet.code) {
        case .connectionParameterUpdateRequest where role == .central:
            let request: ConnectionParameterUpdateRequest
            do throws(L2CAPSignalingError) {
                request = try ConnectionParameterUpdateRequest(data: packet.data)
            } catch {
                link.post(LESignalingPacket.commandNotUnderstood(identifier: packet.identifier).encoded, on: .leSignaling)
                return
            }
            let accepted = request.isAcceptable
            state.withLock {
                $0.parameterUpdateRequests += 1
                if accepted { $0.parameterUpdatesAccepted += 1 }
            }
            link.post(ConnectionParameterUpdateRequest.response(identifier: packet.identifier, accepted: accepted).encoded,
                      on: .leSignaling)
            if accepted {
                Task { [controller, handle] in
                    try? await controller.send(HCILEConnectionUpdate(connectionHandle: handle, connection: request.parameters))
                }
            }
        case .commandReject, .connectionParameterUpdateResponse, .disconnectionResponse,
             .leCreditBasedConnectionResponse, .flowControlCredit:
            // Answers and notices: nothing to answer back.
            break
        default:
            // Unknown, or a request this host does not serve: Command Reject (not understood).
            link.post(LESignalingPacket.commandNotUnderstood(identifier: packet.identifier).encoded, on: .leSignaling)
        }
    }
}

/// Connection parameters in use, in the spec's units (interval 1.25 ms, timeout 10 ms).
public struct LEConnectionParametersInUse: Sendable, Hashable {
    public var interval: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16

    public var intervalDuration: Duration { .microseconds(Int64(interval) * 1250) }
    public var supervisionTimeoutDuration: Duration { .milliseconds(Int64(supervisionTimeout) * 10) }
}
