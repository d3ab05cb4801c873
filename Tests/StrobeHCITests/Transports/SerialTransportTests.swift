import Testing
import StrobeHCI

#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal: the transport opens the follower side as its serial port, the test plays
/// the controller on the leader side.
struct PseudoTerminal {
    let leader: Int32
    let followerPath: String

    // Swift's Glibc module hides the XSI pty calls; they are in libc all the same.
    private typealias OpenPT = @convention(c) (Int32) -> Int32
    private typealias FDCall = @convention(c) (Int32) -> Int32
    private typealias NameCall = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

    private static func libc<T>(_ name: String, as type: T.Type) throws -> T {
        guard let symbol = dlsym(nil, name) else { throw TestListener.Failure("dlsym(\(name))") }
        return unsafeBitCast(symbol, to: type)
    }

    init() throws {
        let openpt = try Self.libc("posix_openpt", as: OpenPT.self)
        let grantpt = try Self.libc("grantpt", as: FDCall.self)
        let unlockpt = try Self.libc("unlockpt", as: FDCall.self)
        let ptsname = try Self.libc("ptsname_r", as: NameCall.self)
        leader = openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard leader >= 0 else { throw TestListener.Failure("posix_openpt") }
        var name = [CChar](repeating: 0, count: 128)
        guard grantpt(leader) == 0, unlockpt(leader) == 0, ptsname(leader, &name, name.count) == 0 else {
            throw TestListener.Failure("grantpt/unlockpt/ptsname_r")
        }
        followerPath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension Transports {
    @Suite("Serial transport", .timeLimit(.minutes(1)))
    struct SerialTransportTests {
        @Test func configuresRawModeAndExchangesPackets() async throws {
            let pty = try PseudoTerminal()
            defer { _ = close(pty.leader) }
            let transport = try StreamTransport.openSerial(path: pty.followerPath, baudRate: 921600, flowControl: true)
            #expect(transport.name == "serial:\(pty.followerPath)")

            // Read the line settings back through a second descriptor.
            let probe = open(pty.followerPath, O_RDWR | O_NOCTTY | O_CLOEXEC)
            #expect(probe >= 0)
            var options = termios()
            #expect(tcgetattr(probe, &options) == 0)
            _ = close(probe)
            #expect(cfgetispeed(&options) == speed_t(B921600))
            #expect(cfgetospeed(&options) == speed_t(B921600))
            #expect(options.c_cflag & tcflag_t(CRTSCTS) != 0)
            #expect(options.c_cflag & tcflag_t(CLOCAL | CREAD) == tcflag_t(CLOCAL | CREAD))
            #expect(options.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8))
            // Raw: no line editing, no echo, no output or input translation.
            #expect(options.c_lflag & tcflag_t(ICANON | ECHO | ISIG) == 0)
            #expect(options.c_oflag & tcflag_t(OPOST) == 0)
            #expect(options.c_iflag & tcflag_t(ICRNL | IXON) == 0)

            let sink = RecordingSink()
            try transport.start(sink)
            // Bytes a cooked tty would translate (CR, LF, ^C, ^D, XON/XOFF) must pass untouched.
            let traffic = sampleTraffic().filter { $0.body.count < 1000 } + [
                .event(code: 0x0E, parameters: [0x0D, 0x0A, 0x03, 0x04, 0x11, 0x13, 0x7F, 0x1A]),
            ]
            Peer.writeAll(pty.leader, traffic.flatMap(\.h4))
            #expect(await sink.packets(count: traffic.count) == traffic)

            for packet in traffic { try transport.send(packet.h4) }
            let sent = Peer.readExactly(pty.leader, traffic.reduce(0) { $0 + $1.h4.count })
            #expect(try Peer.split(sent) == traffic)

            // The tty is polled beside a wake pipe: close must not hang in read().
            transport.close()
            #expect(sink.closes.count == 1)
            #expect(sink.closes.first == .some(nil))
        }

        @Test func leaderHangingUpReportsClosedByPeer() async throws {
            let pty = try PseudoTerminal()
            let transport = try StreamTransport.openSerial(path: pty.followerPath, baudRate: 115200)
            let sink = RecordingSink()
            try transport.start(sink)
            _ = close(pty.leader)
            #expect(await sink.closeReason() == .closedByPeer)
            transport.close()
            #expect(sink.closes.count == 1)
        }

        @Test func unsupportedBaudRateIsATypedErrorListingTheRates() throws {
            let pty = try PseudoTerminal()
            defer { _ = close(pty.leader) }
            #expect(throws: TransportError.unsupportedBaudRate(12345)) {
                try StreamTransport.openSerial(path: pty.followerPath, baudRate: 12345)
            }
            #expect(TransportError.unsupportedBaudRate(12345).description.contains("115200, 230400"))
            #expect(SerialBaudRate.supported.contains(3_000_000))
            #expect(SerialBaudRate.supported == SerialBaudRate.supported.sorted())
        }

        @Test func notATerminalOrMissingCannotOpen() {
            #expect(throws: TransportError.cannotOpen(
                endpoint: "serial:/dev/null",
                reason: "isatty: \(String(cString: strerror(ENOTTY))) (errno \(ENOTTY))")) {
                try StreamTransport.openSerial(path: "/dev/null", baudRate: 115200)
            }
            #expect(throws: TransportError.cannotOpen(
                endpoint: "serial:/dev/strobe-no-such-tty",
                reason: "open: \(String(cString: strerror(ENOENT))) (errno \(ENOENT))")) {
                try StreamTransport.openSerial(path: "/dev/strobe-no-such-tty", baudRate: 115200)
            }
        }
    }
}
