import StrobeCapture
import StrobeHCI
import StrobeSim

extension TransportSpec {
    /// Opens the transport this specification names. The link is not started: hand it to a
    /// controller, which starts it.
    public func open() throws -> any HCITransport {
        switch self {
        case .sim(let scenario):
            return SimTransport(scenario: try scenario.map { path in
                do { return try SimScenario(contentsOf: path) } catch { throw TransportError.cannotOpen(endpoint: "sim:\(path)", reason: "\(error)") }
            } ?? .standard)
        case .hci(let device):
            return HCIUserChannelTransport(device: device)
        case .tcp(let host, let port):
            return try StreamTransport.connectTCP(host: host, port: Int(port))
        case .unix(let path):
            return try StreamTransport.connectUnix(path: path)
        case .serial(let device, let baudRate, let rtsCts):
            return try StreamTransport.openSerial(path: device, baudRate: baudRate, flowControl: rtsCts)
        case .replay(let file):
            return ReplayTransport(path: file)
        }
    }
}
