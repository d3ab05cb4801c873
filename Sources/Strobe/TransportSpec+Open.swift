import StrobeCapture
import StrobeHCI

extension TransportSpec {
    /// Opens the transport this specification names. The link is not started: hand it to a
    /// controller, which starts it. The simulated world is not part of this product: `sim`
    /// throws here; `StrobeSim`'s `openIncludingSimulatedWorld()` opens every kind.
    public func open() throws(TransportError) -> any HCITransport {
        switch self {
        case .sim(let scenario):
            throw TransportError.cannotOpen(
                endpoint: scenario.map { "sim:\($0)" } ?? "sim",
                reason: "the simulated world is in the StrobeSim product (TransportSpec.openIncludingSimulatedWorld())")
        case .hci(let device):
            return HCIUserChannelTransport(device: device)
        case .tcp(let host, let port):
            return try StreamTransport.connectTCP(host: host, port: Int(port))
        case .unix(let path):
            return try StreamTransport.connectUnix(path: path)
        case .serial(let device, let baudRate, let rtsCts):
            return try StreamTransport.openSerial(path: device, baudRate: baudRate, flowControl: rtsCts)
        case .replay(let file, let speed):
            return AnsweringReplayTransport(path: file, speed: speed)
        }
    }
}
