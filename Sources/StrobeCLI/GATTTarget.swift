import ArgumentParser
import Foundation
import Strobe

/// Which device a `gatt` or `connect` command talks to, and how it connects.
struct GATTTargetOptions: ParsableArguments {
    @Option(help: "The device's advertised name (connects at the first advertisement that carries it).")
    var name: String?
    @Option(help: "The device's address, AA:BB:CC:DD:EE:FF.")
    var address: String?
    @Flag(help: "--address is a random address (public by default).")
    var random = false
    @Option(help: "Seconds to find and connect to the device.")
    var timeout: Double = 10
    @Option(help: "The ATT MTU to offer (23...517); the link uses the smaller of both sides'.")
    var mtu: Int = 247

    func validate() throws {
        guard (name == nil) != (address == nil) else { throw ValidationError("give exactly one of --name and --address") }
        if let address, BluetoothAddress(address) == nil { throw ValidationError("--address '\(address)' is not AA:BB:CC:DD:EE:FF") }
        guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be in (0, 600] seconds") }
        guard (23...517).contains(mtu) else { throw ValidationError("--mtu must be between 23 and 517") }
    }

    /// The MTU to offer.
    func configure(_ configuration: inout BluetoothHost.Configuration) {
        configuration.central.preferredMTU = mtu
    }

    /// Connects and exchanges the MTU (the session's host was configured with `configure`).
    func connect(_ session: ControllerSession) async throws -> LEConnection {
        let central = session.central
        let limit = Duration.milliseconds(Int64(timeout * 1000))
        let connection: LEConnection
        if let name {
            connection = try await central.connect(name: name, scanTimeout: limit, timeout: limit)
        } else {
            let address = BluetoothAddress(address ?? "")!
            connection = try await central.connect(to: address, addressType: random ? .random : .public, timeout: limit)
        }
        _ = try await connection.gatt.exchangeMTU()
        return connection
    }
}

/// An attribute as the user names it: `0x` and a hex handle, or a UUID.
enum AttributeReference: ExpressibleByArgument, CustomStringConvertible {
    case handle(AttributeHandle)
    case uuid(BluetoothUUID)

    init?(argument: String) {
        if argument.lowercased().hasPrefix("0x") {
            guard let raw = UInt16(argument.dropFirst(2), radix: 16), raw != 0 else { return nil }
            self = .handle(AttributeHandle(rawValue: raw))
        } else if let uuid = BluetoothUUID(argument) {
            self = .uuid(uuid)
        } else {
            return nil
        }
    }

    var description: String {
        switch self {
        case .handle(let handle): "\(handle)"
        case .uuid(let uuid): "\(uuid)"
        }
    }

    /// The value handle to read or write: the one given, or the value handle of the one
    /// characteristic with this UUID (found by discovery).
    func valueHandle(in connection: LEConnection) async throws -> AttributeHandle {
        switch self {
        case .handle(let handle): handle
        case .uuid: try await characteristic(in: connection).valueHandle
        }
    }

    /// The characteristic this names: by value handle, or the one characteristic with this UUID.
    func characteristic(in connection: LEConnection) async throws -> GATTCharacteristic {
        let peer = Peer(connection)
        switch self {
        case .handle(let handle): return try await peer.characteristic(valueHandle: handle)
        case .uuid(let uuid): return try await peer.characteristic(uuid)
        }
    }
}

/// What a `gatt` command reports as its one-line error.
enum GATTCommandError: Error, CustomStringConvertible {
    /// The peer answered with an ATT error: the operation, the handle it named, the error.
    case peer(operation: String, handle: AttributeHandle, code: ATTErrorCode)
    case notHex(String)

    var description: String {
        switch self {
        case .peer(let operation, let handle, let code): "\(operation) \(handle): \(code)"
        case .notHex(let text): "'\(text)' is not hex bytes"
        }
    }

    /// Runs `body`, turning the peer's ATT error into one line naming the operation and handle.
    @discardableResult
    static func naming<T>(_ operation: String, _ handle: AttributeHandle, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            guard case .att(let error)? = error as? StrobeError else { throw error }
            throw GATTCommandError.peer(operation: operation, handle: error.handle == .reserved ? handle : error.handle, code: error.code)
        }
    }
}

extension [UInt8] {
    /// Lower-case hex, two digits a byte.
    var hexString: String { map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined() }

    /// Bytes from hex (spaces and colons ignored); `nil` when it is not whole bytes of hex.
    init?(hexString text: String) {
        let digits = text.filter { $0 != " " && $0 != ":" }
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self = bytes
    }
}
