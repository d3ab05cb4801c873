#if canImport(Glibc)
import Glibc
#endif

extension StreamTransport {
    /// Opens a UART controller (`serial:/dev/ttyUSB0`) in raw mode at `baudRate`, 8N1.
    /// `flowControl` turns on RTS/CTS hardware flow control, which most H4 UART controllers
    /// expect above 115200 baud. Modem lines are ignored (CLOCAL) so open never waits for DCD.
    package static func openSerial(
        path: String, baudRate: Int, flowControl: Bool = false,
        limits: H4Deframer.Limits = H4Deframer.Limits(), readCoalescing: ReadCoalescing = .off
    ) throws(TransportError) -> StreamTransport {
        let endpoint = "serial:\(path)"
        guard let speed = SerialBaudRate.speed(for: baudRate) else { throw .unsupportedBaudRate(baudRate) }

        // O_NONBLOCK only for the open itself, so that a port without carrier does not hang it.
        let fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .cannotOpen(endpoint, call: "open", errno: errno) }
        func fail(_ call: String) -> TransportError {
            let code = errno
            _ = Glibc.close(fd)
            return .cannotOpen(endpoint, call: call, errno: code)
        }
        guard isatty(fd) == 1 else { throw fail("isatty") }

        var options = termios()
        guard tcgetattr(fd, &options) == 0 else { throw fail("tcgetattr") }
        cfmakeraw(&options)
        guard cfsetispeed(&options, speed) == 0, cfsetospeed(&options, speed) == 0 else { throw fail("cfsetspeed") }
        options.c_cflag |= tcflag_t(CLOCAL | CREAD)
        if flowControl {
            options.c_cflag |= tcflag_t(CRTSCTS)
        } else {
            options.c_cflag &= ~tcflag_t(CRTSCTS)
        }
        // A read returns as soon as one byte is there: the reader polls, then takes what came.
        withUnsafeMutableBytes(of: &options.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(fd, TCSANOW, &options) == 0 else { throw fail("tcsetattr") }
        // Drop whatever the line held before it was configured.
        _ = tcflush(fd, TCIOFLUSH)

        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 else { throw fail("fcntl") }
        return try StreamTransport(fileDescriptor: fd, name: endpoint, limits: limits, readCoalescing: readCoalescing)
    }
}
