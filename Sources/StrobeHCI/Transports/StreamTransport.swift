#if canImport(Glibc)
import Glibc
#endif

/// H4 over a byte stream: a TCP or unix socket (an emulator such as Bumble, a bridge) or a serial
/// tty (a UART controller). One reader thread deframes what it reads in place; `send` writes each
/// whole packet with one write. On a TCP socket the reader waits for the rest of a PDU the only
/// link has begun in one read (`SO_RCVLOWAT`, bounded), when its sink says what is to come.
///
/// Open one with `connectTCP(host:port:)`, `connectUnix(path:)` or `openSerial(path:baudRate:)`,
/// or adopt a descriptor you already have with `init(fileDescriptor:name:)`.
public final class StreamTransport: HCITransport {
    /// The endpoint it was opened as: `tcp:HOST:PORT`, `unix:PATH` or `serial:DEV`, or the name
    /// given with the descriptor.
    public let name: String
    let link: DescriptorLink

    /// The descriptor it reads and writes.
    package var fileDescriptor: Int32 { link.fd }

    /// Takes ownership of `fileDescriptor`: a connected stream or seqpacket socket, a tty or a
    /// pipe. Sockets are woken for close with `shutdown()`; anything else is polled beside a
    /// wake pipe. The descriptor is made blocking. On a TCP socket the reader waits for the rest
    /// of a PDU, for a bounded time (`ReceiveLowWaterMark`). `readCoalescing` holds the reader
    /// off after each read that brought ACL data (off by default; in its place on TCP, the
    /// low-water mark is not set). A socket whose reads return one record each (seqpacket)
    /// ignores it: holding there would cost the hold for each packet, and batch nothing.
    package init(
        fileDescriptor: Int32, name: String, limits: H4Deframer.Limits = H4Deframer.Limits(),
        readCoalescing: ReadCoalescing = .off
    ) throws(TransportError) {
        var info = stat()
        guard fstat(fileDescriptor, &info) == 0 else {
            let code = errno
            _ = Glibc.close(fileDescriptor)
            throw .systemCall(call: "fstat", errno: code)
        }
        let flags = fcntl(fileDescriptor, F_GETFL)
        if flags >= 0, flags & O_NONBLOCK != 0 {
            _ = fcntl(fileDescriptor, F_SETFL, flags & ~O_NONBLOCK)
        }
        let isSocket = info.st_mode & S_IFMT == S_IFSOCK
        var proto: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        let isTCP = isSocket && getsockopt(fileDescriptor, SOL_SOCKET, SO_PROTOCOL, &proto, &length) == 0
            && proto == Int32(IPPROTO_TCP)
        var socketType: Int32 = 0
        length = socklen_t(MemoryLayout<Int32>.size)
        let isByteStream = !isSocket || (getsockopt(fileDescriptor, SOL_SOCKET, SO_TYPE, &socketType, &length) == 0
            && socketType == Int32(SOCK_STREAM.rawValue))
        let coalescing = isByteStream ? readCoalescing : .off
        self.name = name
        link = try DescriptorLink(
            fileDescriptor: fileDescriptor, name: name,
            wakeup: isSocket ? .shutdown : .wakePipe,
            writeCall: isSocket ? .send : .write,
            eioMeansClosed: !isSocket,
            limits: limits,
            followsLowWater: isTCP && coalescing.isOff,
            readCoalescing: coalescing
        )
    }

    deinit { link.close() }

    /// Starts the reader thread that deframes H4 and delivers each packet to `sink`. Throws
    /// `TransportError.notOpen` when started twice or after `close()`, and `.systemCall` when the
    /// thread cannot be created.
    public func start(_ sink: any HCIPacketSink) throws(TransportError) {
        try link.start(sink)
    }

    /// Writes one whole H4 packet, completing partial writes, under a lock so that packets from
    /// different threads never interleave. Throws `TransportError.notOpen` before `start` or after
    /// `close()`, `.closedByPeer` when the other end has gone (EPIPE, ECONNRESET), and
    /// `.systemCall` for any other write error.
    public func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) {
        try link.send(h4Packet)
    }

    /// Stops the reader, waking it with `shutdown()` for a socket or through a wake pipe otherwise,
    /// and closes the descriptor. Closing twice is harmless.
    public func close() {
        link.close()
    }
}

extension TransportError {
    /// `.cannotOpen` naming the call that failed and why.
    static func cannotOpen(_ endpoint: String, call: String, errno code: Int32) -> TransportError {
        .cannotOpen(endpoint: endpoint, reason: "\(call): \(String(cString: strerror(code))) (errno \(code))")
    }
}
