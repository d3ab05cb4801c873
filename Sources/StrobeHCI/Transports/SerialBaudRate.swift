#if canImport(Glibc)
import Glibc
#endif

/// The line speeds a serial HCI transport accepts: those termios has a constant for.
/// Rates outside the table would need the non-portable BOTHER interface, and a UART
/// controller that runs at such a rate is rare enough to refuse with a clear error.
package enum SerialBaudRate {
    /// Rate in bits per second and its termios speed constant.
    static let table: [(rate: Int, speed: speed_t)] = [
        (1200, speed_t(B1200)), (2400, speed_t(B2400)), (4800, speed_t(B4800)),
        (9600, speed_t(B9600)), (19200, speed_t(B19200)), (38400, speed_t(B38400)),
        (57600, speed_t(B57600)), (115200, speed_t(B115200)), (230400, speed_t(B230400)),
        (460800, speed_t(B460800)), (500000, speed_t(B500000)), (576000, speed_t(B576000)),
        (921600, speed_t(B921600)), (1000000, speed_t(B1000000)), (1152000, speed_t(B1152000)),
        (1500000, speed_t(B1500000)), (2000000, speed_t(B2000000)), (2500000, speed_t(B2500000)),
        (3000000, speed_t(B3000000)), (3500000, speed_t(B3500000)), (4000000, speed_t(B4000000)),
    ]

    /// Every accepted rate, ascending.
    package static var supported: [Int] { table.map(\.rate) }

    /// The termios constant for `rate`, or `nil` when there is none.
    static func speed(for rate: Int) -> speed_t? {
        table.first { $0.rate == rate }?.speed
    }
}
