import StrobeCapture
import StrobeHCI

extension TransportSpec {
    /// Opens the transport this specification names. The link is not started: hand it to a
    /// controller, which starts it. The simulated world is not part of this product: `sim`
    /// throws here; `StrobeSim`'s `openIncludingSimulatedWorld()` opens every kind.
    ///
    /// `readCoalescing` trades latency for fewer wakeups on a streaming link (`ReadCoalescing`):
    /// for `tcp`, `unix` and `serial` only; asked of another kind, it throws `.cannotOpen`.
    public func open(readCoalescing: ReadCoalescing = .off) throws(TransportError) -> any HCITransport {
        try checkReadCoalescing(readCoalescing)
        switch self {
        case .sim(let scenario):
            throw TransportError.cannotOpen(
                endpoint: scenario.map { "sim:\($0)" } ?? "sim",
                reason: "the simulated world is in the StrobeSim product (TransportSpec.openIncludingSimulatedWorld())")
        case .hci(let device):
            return HCIUserChannelTransport(device: device)
        case .tcp(let host, let port):
            return try StreamTransport.connectTCP(host: host, port: Int(port), readCoalescing: readCoalescing)
        case .unix(let path):
            return try StreamTransport.connectUnix(path: path, readCoalescing: readCoalescing)
        case .serial(let device, let baudRate, let rtsCts):
            return try StreamTransport.openSerial(
                path: device, baudRate: baudRate, flowControl: rtsCts, readCoalescing: readCoalescing)
        case .replay(let file, let speed):
            return AnsweringReplayTransport(path: file, speed: speed)
        }
    }

    /// Throws `.cannotOpen` when `readCoalescing` is on for a kind that does not read a byte
    /// stream (the kernel's HCI socket reads one packet at a time; the simulated world and a
    /// replay have no reads to hold).
    package func checkReadCoalescing(_ readCoalescing: ReadCoalescing) throws(TransportError) {
        switch self {
        case .tcp, .unix, .serial:
            return
        case .sim, .hci, .replay:
            guard readCoalescing.isOff else {
                throw TransportError.cannotOpen(
                    endpoint: description,
                    reason: "read coalescing applies to tcp, unix and serial transports, not this one")
            }
        }
    }
}
