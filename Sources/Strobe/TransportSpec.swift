import StrobeCapture
import StrobeHCI

/// A transport as the user names it on the command line or in configuration:
/// `sim[:SCENARIO]`, `hci:N`, `tcp:HOST:PORT`, `unix:PATH`, `serial:DEV[,BAUD][,rtscts]`, `replay:FILE[,speed=N|max]`.
public enum TransportSpec: Sendable, Equatable, CustomStringConvertible {
    /// The simulated world: the standard one, or the one a scenario file describes.
    case sim(scenario: String?)
    /// The kernel's HCI user channel on `hciN`.
    case hci(device: Int)
    /// H4 over TCP.
    case tcp(host: String, port: UInt16)
    /// H4 over a unix stream socket; a path starting with `@` is a Linux abstract name.
    case unix(path: String)
    /// H4 over a serial line.
    case serial(device: String, baudRate: Int, rtsCts: Bool)
    /// A btsnoop capture acting as the controller it recorded: commands answered as recorded,
    /// the rest played at `speed`.
    case replay(file: String, speed: ReplaySpeed = .realTime)

    /// The serial speed used when none is given: what most USB-serial HCI dongles run at.
    public static let defaultBaudRate = 1_000_000

    /// Reads a specification as the `strobe` tool takes it (the forms above). Throws
    /// `TransportError.invalidSpecification` saying what was wrong.
    public init(parsing text: String) throws(TransportError) {
        if text == "sim" {
            self = .sim(scenario: nil)
            return
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw .invalidSpecification("'\(text)' has no scheme; use sim, hci:N, tcp:HOST:PORT, unix:PATH, serial:DEV[,BAUD][,rtscts] or replay:FILE")
        }
        let scheme = text[..<colon]
        let rest = String(text[text.index(after: colon)...])
        switch scheme {
        case "hci":
            let digits = rest.hasPrefix("hci") ? String(rest.dropFirst(3)) : rest
            guard let device = Int(digits), device >= 0, device < 0x10000 else {
                throw .invalidSpecification("'\(text)': hci takes a device index such as hci:0")
            }
            self = .hci(device: device)
        case "tcp":
            // The port follows the last colon so that bracketed IPv6 hosts keep theirs.
            guard let portColon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: portColon)...]), port > 0 else {
                throw .invalidSpecification("'\(text)': tcp takes HOST:PORT such as tcp:127.0.0.1:9001")
            }
            var host = String(rest[..<portColon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty else { throw .invalidSpecification("'\(text)': tcp needs a host") }
            self = .tcp(host: host, port: port)
        case "unix":
            guard !rest.isEmpty else { throw .invalidSpecification("'\(text)': unix needs a socket path") }
            self = .unix(path: rest)
        case "serial":
            let parts = rest.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard let device = parts.first, !device.isEmpty else {
                throw .invalidSpecification("'\(text)': serial needs a device such as serial:/dev/ttyUSB0")
            }
            var baudRate = Self.defaultBaudRate
            var rtsCts = false
            for option in parts.dropFirst() {
                if option == "rtscts" {
                    rtsCts = true
                } else if let rate = Int(option), rate > 0 {
                    baudRate = rate
                } else {
                    throw .invalidSpecification("'\(text)': unknown serial option '\(option)' (expected a baud rate or rtscts)")
                }
            }
            self = .serial(device: device, baudRate: baudRate, rtsCts: rtsCts)
        case "sim":
            guard !rest.isEmpty else { throw .invalidSpecification("'\(text)': sim takes a scenario file, or nothing") }
            self = .sim(scenario: rest)
        case "replay":
            var file = String(rest)
            var speed = ReplaySpeed.realTime
            if let option = file.range(of: ",speed=", options: .backwards) {
                let value = String(file[option.upperBound...])
                guard let parsed = ReplaySpeed(value) else {
                    throw .invalidSpecification("'\(text)': speed must be a positive number or max, not '\(value)'")
                }
                speed = parsed
                file = String(file[..<option.lowerBound])
            }
            guard !file.isEmpty else { throw .invalidSpecification("'\(text)': replay needs a btsnoop file") }
            self = .replay(file: file, speed: speed)
        default:
            throw .invalidSpecification("unknown transport '\(scheme)'; use sim, hci, tcp, unix, serial or replay")
        }
    }

    /// The specification as `init(parsing:)` reads it.
    public var description: String {
        switch self {
        case .sim(let scenario): scenario.map { "sim:\($0)" } ?? "sim"
        case .hci(let device): "hci:\(device)"
        case .tcp(let host, let port): host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        case .serial(let device, let baudRate, let rtsCts): "serial:\(device),\(baudRate)" + (rtsCts ? ",rtscts" : "")
        case .replay(let file, let speed): "replay:\(file)" + (speed == .realTime ? "" : ",speed=\(speed)")
        }
    }
}
