import Foundation
import GRPCCore
import Strobe
import SwiftProtobuf

/// Pandora's Security service over Strobe's Security Manager.
///
/// LE levels are read the way avatar's reference device (Bumble) reads them: LE_LEVEL1 always,
/// LE_LEVEL2 and LE_LEVEL3 once the link is encrypted (Bumble counts a link encrypted by any
/// pairing, Just Works included, as authenticated), LE_LEVEL4 when that key came from LE
/// Secure Connections.
struct SecurityService: Pandora_Security.SimpleServiceProtocol {
    let device: PandoraDevice

    func onPairing(request: RPCAsyncSequence<Pandora_PairingEventAnswer, any Error>, response: RPCWriter<Pandora_PairingEvent>,
                   context: ServerContext) async throws {
        let pairing = device.pairing
        let (id, events) = pairing.open()
        defer { pairing.close(id) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await answer in request { pairing.receive(answer) }
            }
            group.addTask {
                for await event in events { try await response.write(event) }
            }
            // Either side ending (the runner closed its stream, or a newer stream took over) ends the call.
            try await group.next()
            group.cancelAll()
        }
    }

    func secure(request: Pandora_SecureRequest, context: ServerContext) async throws -> Pandora_SecureResponse {
        let (connection, level) = try await link(request.connection, level: request.level)
        var response = Pandora_SecureResponse()
        if Self.reached(level, on: connection) {
            response.success = Google_Protobuf_Empty()
            return response
        }
        // Encrypts with a bond, or pairs (as central), or asks the central to (Security Request,
        // as peripheral), joining a pairing under way; a central that answers by encrypting with
        // its bond reaches the level without a pairing.
        let outcome: Result<Void, any Error> = await withTaskGroup(of: Result<Void, any Error>?.self) { group in
            group.addTask {
                do {
                    _ = try await connection.secure(to: .unauthenticated)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                for await _ in connection.securityLevelChanges() where Self.reached(level, on: connection) { return .success(()) }
                return nil
            }
            var outcome: Result<Void, any Error>?
            while outcome == nil, let next = await group.next() { outcome = next }
            group.cancelAll()
            return outcome ?? .failure(CancellationError())
        }
        if case .failure(let error) = outcome, !Self.reached(level, on: connection) {
            if !connection.isConnected || error as? StrobeError == .security(.pairing(.disconnected)) {
                response.connectionDied = Google_Protobuf_Empty()
            } else {
                response.pairingFailure = Google_Protobuf_Empty()
            }
            return response
        }
        if Self.reached(level, on: connection) { response.success = Google_Protobuf_Empty() } else { response.notReached = Google_Protobuf_Empty() }
        return response
    }

    func waitSecurity(request: Pandora_WaitSecurityRequest, context: ServerContext) async throws -> Pandora_WaitSecurityResponse {
        let level: Pandora_SecureRequest.OneOf_Level? = switch request.level {
        case .le(let value)?: .le(value)
        case .classic(let value)?: .classic(value)
        case nil: nil
        }
        let (connection, wanted) = try await link(request.connection, level: level)
        var response = Pandora_WaitSecurityResponse()
        switch await Self.outcome(waitingFor: wanted, on: connection) {
        case .reached: response.success = Google_Protobuf_Empty()
        case .connectionDied: response.connectionDied = Google_Protobuf_Empty()
        case .pairingFailed: response.pairingFailure = Google_Protobuf_Empty()
        }
        try Task.checkCancellation()
        return response
    }

    private enum Outcome: Sendable { case reached, connectionDied, pairingFailed }

    /// The first of: the level reached, the link lost, a pairing that failed.
    private static func outcome(waitingFor level: Pandora_LESecurityLevel, on connection: LEConnection) async -> Outcome {
        if reached(level, on: connection) { return .reached }
        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                for await _ in connection.securityLevelChanges() where reached(level, on: connection) { return .reached }
                return nil
            }
            group.addTask {
                _ = await connection.disconnected()
                return Task.isCancelled ? nil : .connectionDied
            }
            group.addTask {
                // The pairing the peer (or this host, on its Security Request) runs: one that
                // fails ends the wait. (One that succeeded earlier is returned at once; the
                // level stream decides then.)
                do {
                    _ = try await connection.pairingCompleted(timeout: .seconds(3600))
                    return reached(level, on: connection) ? .reached : nil
                } catch {
                    if Task.isCancelled { return nil }
                    return connection.isConnected ? .pairingFailed : .connectionDied
                }
            }
            var result: Outcome?
            while result == nil, let next = await group.next() { result = next }
            group.cancelAll()
            return result ?? .connectionDied
        }
    }

    static func reached(_ level: Pandora_LESecurityLevel, on connection: LEConnection) -> Bool {
        switch level {
        case .leLevel1: return true
        case .leLevel2, .leLevel3: return connection.securityLevel >= .unauthenticated
        default:
            guard connection.securityLevel >= .unauthenticated else { return false }
            return connection.pairingResult?.secureConnections ?? connection.bond?.secureConnections ?? false
        }
    }

    private func link(_ cookie: Pandora_Connection, level: Pandora_SecureRequest.OneOf_Level?) async throws
        -> (LEConnection, Pandora_LESecurityLevel) {
        guard case .le(let wanted)? = level else {
            throw RPCError(code: .unimplemented, message: "Strobe is an LE-only host: only LE security levels")
        }
        guard let connection = try await device.stack().connection(cookie) else {
            throw RPCError(code: .notFound, message: "no such connection")
        }
        return (connection, wanted)
    }
}

/// Pandora's SecurityStorage service over the device's bond store.
struct SecurityStorageService: Pandora_SecurityStorage.SimpleServiceProtocol {
    let device: PandoraDevice

    func isBonded(request: Pandora_IsBondedRequest, context: ServerContext) async throws -> Google_Protobuf_BoolValue {
        let identity = try Self.identity(request.address)
        let bonds = try await device.stack().bonds.bonds()
        return Google_Protobuf_BoolValue(bonds.contains { $0.peer == identity })
    }

    func deleteBond(request: Pandora_DeleteBondRequest, context: ServerContext) async throws -> Google_Protobuf_Empty {
        let identity = try Self.identity(request.address)
        _ = try await device.stack().bonds.removeBond(for: identity.address)
        return Google_Protobuf_Empty()
    }

    private static func identity(_ address: Pandora_IsBondedRequest.OneOf_Address?) throws -> IdentityAddress {
        switch address {
        case .public(let bytes)?: try identity(bytes, isRandom: false)
        case .random(let bytes)?: try identity(bytes, isRandom: true)
        case nil: try identity(nil, isRandom: false)
        }
    }

    private static func identity(_ address: Pandora_DeleteBondRequest.OneOf_Address?) throws -> IdentityAddress {
        switch address {
        case .public(let bytes)?: try identity(bytes, isRandom: false)
        case .random(let bytes)?: try identity(bytes, isRandom: true)
        case nil: try identity(nil, isRandom: false)
        }
    }

    private static func identity(_ bytes: Data?, isRandom: Bool) throws -> IdentityAddress {
        guard let bytes, let address = BluetoothAddress(pandora: bytes) else {
            throw RPCError(code: .invalidArgument, message: "the request names no address of six bytes")
        }
        return IdentityAddress(address: address, isRandom: isRandom)
    }
}
