import Foundation
import GRPCCore
import Strobe
import SwiftProtobuf

/// Pandora's Host service over Strobe's LE roles. BR/EDR calls (Connect, WaitConnection,
/// Inquiry, the discoverability and connectability modes) answer UNIMPLEMENTED at once.
struct HostService: Pandora_Host.SimpleServiceProtocol {
    let device: PandoraDevice

    func factoryReset(request: Google_Protobuf_Empty, context: ServerContext) async throws -> Google_Protobuf_Empty {
        try await device.reset(keepingBonds: false)
        return Google_Protobuf_Empty()
    }

    func reset(request: Google_Protobuf_Empty, context: ServerContext) async throws -> Google_Protobuf_Empty {
        try await device.reset(keepingBonds: true)
        return Google_Protobuf_Empty()
    }

    func readLocalAddress(request: Google_Protobuf_Empty, context: ServerContext) async throws -> Pandora_ReadLocalAddressResponse {
        guard let address = try await device.stack().publicAddress else {
            throw RPCError(code: .unavailable, message: "the controller has not reported its address")
        }
        var response = Pandora_ReadLocalAddressResponse()
        response.address = address.pandora
        return response
    }

    // MARK: Connections

    func connectLE(request: Pandora_ConnectLERequest, context: ServerContext) async throws -> Pandora_ConnectLEResponse {
        let stack = try await device.stack()
        let (address, type) = try Self.peer(request.address)
        guard request.ownAddressType == .random else {
            throw RPCError(code: .unimplemented, message: "this device connects from its static random address only (own_address_type RANDOM)")
        }
        var response = Pandora_ConnectLEResponse()
        if stack.central.connections.contains(where: { $0.peerAddress == address }) {
            response.connectionAlreadyExists = Google_Protobuf_Empty()
            return response
        }
        do throws(StrobeError) {
            let connection = try await stack.central.connect(to: address, addressType: type)
            response.connection = stack.cookie(for: connection)
        } catch {
            switch error {
            case .connection(.timeout): response.peerNotFound = Google_Protobuf_Empty()
            case .connection(.failed(_, let status)) where status == .connectionAlreadyExists:
                response.connectionAlreadyExists = Google_Protobuf_Empty()
            case .connection(let error): throw RPCError(code: .aborted, message: error.description)
            default: throw error
            }
        }
        return response
    }

    func disconnect(request: Pandora_DisconnectRequest, context: ServerContext) async throws -> Google_Protobuf_Empty {
        let stack = try await device.stack()
        if let connection = stack.connection(request.connection) {
            device.pairing.cancelQuestions(for: request.connection)
            _ = try await connection.disconnect()
        }
        return Google_Protobuf_Empty()
    }

    func waitDisconnection(request: Pandora_WaitDisconnectionRequest, context: ServerContext) async throws -> Google_Protobuf_Empty {
        if let connection = try await device.stack().connection(request.connection) {
            _ = await connection.disconnected()
            try Task.checkCancellation()
        }
        return Google_Protobuf_Empty()
    }

    func getConnectionParameters(
        request: Pandora_GetConnectionParametersRequest, context: ServerContext
    ) async throws -> Pandora_GetConnectionParametersResponse {
        var response = Pandora_GetConnectionParametersResponse()
        guard let connection = try await device.stack().connection(request.connection), connection.isConnected else {
            response.connectionNotFound = Google_Protobuf_Empty()
            return response
        }
        let parameters = connection.parameters
        var values = Pandora_ConnectionParameters()
        values.connectionInterval = UInt32(parameters.interval)
        values.peripheralLatency = UInt32(parameters.latency)
        values.supervisionTimeout = UInt32(parameters.supervisionTimeout)
        response.connectionParameters = values
        return response
    }

    func waitConnectionUpdate(
        request: Pandora_WaitConnectionUpdateRequest, context: ServerContext
    ) async throws -> Pandora_WaitConnectionUpdateResponse {
        throw RPCError(code: .unimplemented, message: "WaitConnectionUpdate is not served")
    }

    // MARK: Advertising and scanning

    func advertise(request: Pandora_AdvertiseRequest, response: RPCWriter<Pandora_AdvertiseResponse>,
                   context: ServerContext) async throws {
        guard request.legacy, request.connectable, request.target == nil, request.primaryPhy == .primary1M,
              request.secondaryPhy == .secondaryNone else {
            throw RPCError(code: .unimplemented, message: "this device advertises connectable, undirected legacy PDUs only")
        }
        guard request.ownAddressType == .random else {
            throw RPCError(code: .unimplemented, message: "this device advertises from its static random address only (own_address_type RANDOM)")
        }
        let stack = try await device.stack()
        let data = try AdvertisingData(bytes: try PandoraDataTypes.encode(request.data))
        let scanResponse = request.hasScanResponseData ? try AdvertisingData(bytes: try PandoraDataTypes.encode(request.scanResponseData)) : nil
        let interval = try Self.milliseconds(request.interval, named: "interval", default: .milliseconds(100))
        let incoming = stack.peripheral.incomingConnections()
        try await stack.peripheral.startAdvertising(data: data, scanResponse: scanResponse, interval: interval)
        do {
            for await connection in incoming {
                var message = Pandora_AdvertiseResponse()
                message.connection = stack.cookie(for: connection)
                try await response.write(message)
                // A connection ends legacy advertising; the call goes on advertising until cancelled.
                try await stack.peripheral.startAdvertising(data: data, scanResponse: scanResponse, interval: interval)
            }
        } catch {
            await Self.outsideCancellation { try? await stack.peripheral.stopAdvertising() }
            throw error
        }
        // Cancelled (the stream ended): advertising stops, the links stay.
        await Self.outsideCancellation { try? await stack.peripheral.stopAdvertising() }
    }

    func scan(request: Pandora_ScanRequest, response: RPCWriter<Pandora_ScanningResponse>, context: ServerContext) async throws {
        let stack = try await device.stack()
        var phys: LEPHYs = []
        if request.phys.isEmpty || request.phys.contains(.primary1M) { phys.insert(.le1M) }
        if request.phys.isEmpty || request.phys.contains(.primaryCoded),
           stack.controller.info?.leFeatures.contains(.leCodedPHY) == true {
            phys.insert(.leCoded)
        }
        if phys.isEmpty { phys = .le1M }
        let interval = try Self.milliseconds(request.interval, named: "interval", default: .milliseconds(60))
        let window = try Self.milliseconds(request.window, named: "window", default: interval)
        guard let ownAddressType = UInt8(exactly: request.ownAddressType.rawValue), ownAddressType <= 0x03 else {
            throw RPCError(code: .invalidArgument, message: "own_address_type \(request.ownAddressType.rawValue) is none of the four")
        }
        let scanner = stack.central.scanner()
        let reports = scanner.reports()
        try await scanner.start(LEScanner.Configuration(
            active: !request.passive, interval: interval, window: window, mode: request.legacy ? .legacy : .automatic,
            ownAddressType: LEOwnAddressType(rawValue: ownAddressType), phys: phys))
        var merger = ScanResponseMerger(active: !request.passive)
        do {
            for await report in reports {
                for merged in merger.receive(report) { try await response.write(Self.scanningResponse(merged)) }
            }
        } catch {
            await Self.outsideCancellation { try? await scanner.stop() }
            throw error
        }
        await Self.outsideCancellation { try? await scanner.stop() }
    }

    static func scanningResponse(_ report: ScanReport) -> Pandora_ScanningResponse {
        var message = Pandora_ScanningResponse()
        message.legacy = report.legacy
        switch report.addressType {
        case .public: message.public = report.address.pandora
        case .publicIdentity: message.publicIdentity = report.address.pandora
        case .randomIdentity: message.randomStaticIdentity = report.address.pandora
        default: message.random = report.address.pandora
        }
        message.connectable = report.connectable
        message.scannable = report.scannable
        message.truncated = report.truncated
        message.sid = UInt32(report.sid)
        message.primaryPhy = report.primaryPHY == .leCoded ? .primaryCoded : .primary1M
        switch report.secondaryPHY {
        case .le1M?: message.secondaryPhy = .secondary1M
        case .le2M?: message.secondaryPhy = .secondary2M
        case .leCoded?: message.secondaryPhy = .secondaryCoded
        default: message.secondaryPhy = .secondaryNone
        }
        message.txPower = Int32(report.txPower ?? 127)
        message.rssi = Int32(report.rssi ?? 127)
        message.data = PandoraDataTypes.decode(report.data)
        return message
    }

    // MARK: BR/EDR

    func connect(request: Pandora_ConnectRequest, context: ServerContext) async throws -> Pandora_ConnectResponse {
        throw Self.noBREDR
    }

    func waitConnection(request: Pandora_WaitConnectionRequest, context: ServerContext) async throws -> Pandora_WaitConnectionResponse {
        throw Self.noBREDR
    }

    func inquiry(request: Google_Protobuf_Empty, response: RPCWriter<Pandora_InquiryResponse>, context: ServerContext) async throws {
        throw Self.noBREDR
    }

    func setDiscoverabilityMode(request: Pandora_SetDiscoverabilityModeRequest, context: ServerContext) async throws -> Google_Protobuf_Empty {
        throw Self.noBREDR
    }

    func setConnectabilityMode(request: Pandora_SetConnectabilityModeRequest, context: ServerContext) async throws -> Google_Protobuf_Empty {
        throw Self.noBREDR
    }

    static let noBREDR = RPCError(code: .unimplemented, message: "Strobe is an LE-only host: no BR/EDR")

    // MARK: Helpers

    /// The peer a ConnectLE request names.
    static func peer(_ address: Pandora_ConnectLERequest.OneOf_Address?) throws -> (BluetoothAddress, LEAddressType) {
        let parsed: (Data, LEAddressType)? = switch address {
        case .public(let bytes)?: (bytes, .public)
        case .random(let bytes)?: (bytes, .random)
        case .publicIdentity(let bytes)?: (bytes, .publicIdentity)
        case .randomStaticIdentity(let bytes)?: (bytes, .randomIdentity)
        case nil: nil
        }
        guard let (bytes, type) = parsed, let address = BluetoothAddress(pandora: bytes) else {
            throw RPCError(code: .invalidArgument, message: "the request names no peer address of six bytes")
        }
        return (address, type)
    }

    /// A time in milliseconds from a request (0: the default); the controller's own limits
    /// apply after this.
    static func milliseconds(_ value: Float, named name: String, default fallback: Duration) throws -> Duration {
        guard value.isFinite, value >= 0, value <= 60_000 else {
            throw RPCError(code: .invalidArgument, message: "\(name) \(value) ms is not a time of 0 ... 60000 ms")
        }
        return value == 0 ? fallback : .microseconds(Int64(value * 1000))
    }

    /// Runs `body` in a task of its own, so that the caller's cancellation does not cancel it
    /// (stopping a scan or advertising when the call is cancelled).
    static func outsideCancellation(_ body: @escaping @Sendable () async -> Void) async {
        await Task { await body() }.value
    }
}
