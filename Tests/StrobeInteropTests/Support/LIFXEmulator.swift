import AsyncHTTPClient
import Foundation
import StrobeTestSupport
import StrobeBase
import Synchronization
import NIOCore
import NIOHTTP1
#if canImport(Glibc)
import Glibc
#endif

/// `lifx-emulator` (PyPI, from the venv `Scripts/install-test-deps.sh` makes) on loopback: the
/// lights of a YAML config on a UDP port, and its HTTP management API for reading their state
/// back and switching fault scenarios on.
final class LIFXEmulator: Sendable {
    struct Device: Sendable {
        var serial: String
        var label: String
        var power: Bool = true
        var hsbk: [Int] = [0, 0, 65535, 3500]
        var group: (id: String, name: String)
        var location: (id: String, name: String)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: UInt16
    let apiPort: UInt16
    private let process: Process
    private let directory: URL

    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["STROBE_LIFX_EMULATOR"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return RepositoryPaths.root.appendingPathComponent(".venv-lights/bin/lifx-emulator")
    }

    /// `bind` 0.0.0.0 lets it hear broadcasts (to 127.255.255.255 on loopback).
    init(devices: [Device], bind: String = "127.0.0.1") async throws {
        port = try Self.freePort(SOCK_DGRAM)
        apiPort = try Self.freePort(SOCK_STREAM)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-lifx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var yaml = "bind: \(bind)\nport: \(port)\napi: true\napi_port: \(apiPort)\napi_activity: false\ndevices:\n"
        for device in devices {
            yaml += """
              - product_id: 27
                serial: "\(device.serial)"
                label: "\(device.label)"
                power_level: \(device.power ? 65535 : 0)
                color: [\(device.hsbk.map(String.init).joined(separator: ", "))]
                group: "\(device.group.name)"
                group_id: "\(device.group.id)"
                location: "\(device.location.name)"
                location_id: "\(device.location.id)"

            """
        }
        let config = directory.appendingPathComponent("lifx-emulator.yaml")
        try yaml.write(to: config, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = Self.executable
        process.arguments = ["--config", config.path]
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try await PeerStarts.slots.holding {
            try process.run()
            // Ready when its management API answers (it starts after the UDP server).
            let deadline = ContinuousClock.now + .seconds(90)
            while (try? await self.devices()) == nil {
                guard process.isRunning else { throw Failure(description: "lifx-emulator exited with \(process.terminationStatus)") }
                guard ContinuousClock.now < deadline else { throw Failure(description: "lifx-emulator did not start within 90 s") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Kills it (it keeps nothing worth a graceful stop) and waits for it off the test's pool.
    func stop() async {
        await process.killAndWait()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit {
        process.kill()
    }

    /// Every device as the emulator holds it (its `GET /api/devices`).
    func devices() async throws -> [[String: Any]] {
        let (data, _) = try await request("GET", "/api/devices")
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let devices = object["devices"] as? [[String: Any]] else { throw Failure(description: "unexpected /api/devices") }
        return devices
    }

    func device(_ serial: String) async throws -> [String: Any] {
        guard let device = try await devices().first(where: { $0["serial"] as? String == serial }) else {
            throw Failure(description: "no device \(serial)")
        }
        return device
    }

    /// How many datagrams of LIFX message `type` the emulator has taken in (its `GET /api/stats`),
    /// waiting up to `deadline` for it to reach `atLeast`: its UDP server and its API share one
    /// event loop, so a datagram just sent may not be counted yet.
    func received(type: UInt16, atLeast: Int, deadline: Duration = .seconds(10)) async throws -> Int {
        let end = ContinuousClock.now + deadline
        while true {
            let (data, _) = try await request("GET", "/api/stats")
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let byType = object["packets_received_by_type"] as? [String: Any] else { throw Failure(description: "unexpected /api/stats") }
            let count = byType[String(type)] as? Int ?? 0
            if count >= atLeast || ContinuousClock.now >= end { return count }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Sets the emulator's global fault scenario (`drop_packets`, `response_delays`,
    /// `malformed_packets`, `partial_responses`, ...); an empty one clears it.
    func setScenario(json: String) async throws {
        _ = try await request("PUT", "/api/scenarios/global", body: Data(json.utf8))
    }

    private func request(_ method: String, _ path: String, body: Data? = nil) async throws -> (Data, Int) {
        let (data, status) = try await LocalHTTP.request(method, "http://127.0.0.1:\(apiPort)\(path)", body: body)
        guard (200..<300).contains(status) else {
            throw Failure(description: "\(method) \(path): \(status) \(String(decoding: data, as: UTF8.self))")
        }
        return (data, status)
    }

    /// Every port `freePort` has handed out in this run. A probed port is free again once its
    /// probe socket closes, so two worlds starting at once could be given the same one, and a
    /// host could reach another RootCanal's port instead of its controller (seen once: the H4
    /// stream began with 0x1B); no port is handed out twice.
    private static let handedOut = Lock<Set<UInt16>>([])

    /// A port the kernel just handed out on loopback, not handed out before in this run (free,
    /// barring a race with another process).
    static func freePort(_ type: __socket_type) throws -> UInt16 {
        for _ in 0..<100 {
            let port = try probePort(type)
            if handedOut.withLock({ $0.insert(port).inserted }) { return port }
        }
        throw Failure(description: "no loopback port left that this run has not handed out")
    }

    private static func probePort(_ type: __socket_type) throws -> UInt16 {
        let fd = socket(AF_INET, Int32(type.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw Failure(description: "bind: errno \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }
}
