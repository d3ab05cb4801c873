import StrobeBase
import Synchronization

/// A controller reached through the Linux kernel's HCI user channel (`HCI_CHANNEL_USER`):
/// exclusive access to hciN, the kernel's own stack and bluetoothd stand aside.
///
/// The kernel delivers exactly one packet per `read()`, H4 type byte first, and takes one
/// packet per `write()`. The reader still runs every read through the H4 deframer, so lengths
/// are checked the same way as on any stream. The HCI socket has no `shutdown()`, so the reader
/// polls it beside a wake pipe that `close()` writes.
///
/// Needs CAP_NET_ADMIN. The user channel can be bound only while the device is down; by default
/// `start` brings it down first.
public final class HCIUserChannelTransport: HCITransport {
    /// The adapter index: N in `hciN`.
    public let device: Int
    /// Whether `start` brings a device that is up down so it can bind it; when `false`, a device
    /// that is up makes `start` throw `TransportError.deviceBusy`.
    public let bringDownIfUp: Bool
    package let limits: H4Deframer.Limits
    /// `hciN`, such as `hci0`.
    public var name: String { "hci\(device)" }

    private enum State {
        case idle
        case open(DescriptorLink)
        case closed
    }

    private let state = Lock(State.idle)
    /// The open link, for `send` to reach with no lock (it may run on a receive path).
    private let openLink = PublishedReference<DescriptorLink>(nil)

    package init(device: Int, bringDownIfUp: Bool = true, limits: H4Deframer.Limits = H4Deframer.Limits()) {
        self.device = device
        self.bringDownIfUp = bringDownIfUp
        self.limits = limits
    }

    deinit { close() }

    /// Opens the socket, brings the device down if it is up (and allowed), binds the user channel
    /// and starts the reader. Throws `.bluetoothUnsupported`, `.permissionDenied`, `.noSuchDevice`,
    /// `.deviceBusy`, `.radioBlocked` or `.cannotBringDown` with advice on what to do.
    public func start(_ sink: any HCIPacketSink) throws(TransportError) {
        try state.withLock { state throws(TransportError) in
            guard case .idle = state else { throw .notOpen }
            let socket = try HCISocket()
            if try socket.deviceInfo(device: device).isUp {
                guard bringDownIfUp else { throw .deviceBusy(device: device) }
                do throws(TransportError) {
                    try socket.bringDown(device: device)
                } catch {
                    switch error {
                    case .systemCall(_, let code): throw .cannotBringDown(device: device, errno: code)
                    default: throw error
                    }
                }
            }
            try socket.bindUserChannel(device: device)
            let link = try DescriptorLink(
                fileDescriptor: socket.takeFileDescriptor(), name: name,
                wakeup: .wakePipe, writeCall: .write, eioMeansClosed: false, limits: limits,
                packetPerWrite: true
            )
            try link.start(sink)
            state = .open(link)
            openLink.replace(with: link)
        }
    }

    /// Writes one whole H4 packet with one `write()`. Throws `TransportError.notOpen` before
    /// `start` or after `close()`, and `.systemCall` when the write fails or takes only part of the
    /// packet.
    public func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) {
        try openLink.read { link throws(TransportError) in
            guard let link else { throw .notOpen }
            try link.send(h4Packet)
        }
    }

    /// Stops the reader and releases the device (the kernel closes it with the socket).
    public func close() {
        let link = state.withLock { state -> DescriptorLink? in
            defer {
                state = .closed
                openLink.replace(with: nil)
            }
            if case .open(let link) = state { return link }
            return nil
        }
        link?.close()
    }
}
