#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 address and UDP port.
package struct UDPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// In network byte order, as `sockaddr_in` holds it.
    let address: UInt32
    package let port: UInt16

    package init(host: String, port: UInt16) throws(LightsError) {
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { throw .badAddress(host) }
        self.address = address.s_addr
        self.port = port
    }

    init(_ socketAddress: sockaddr_in) {
        address = socketAddress.sin_addr.s_addr
        port = UInt16(bigEndian: socketAddress.sin_port)
    }

    var socketAddress: sockaddr_in {
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = port.bigEndian
        socketAddress.sin_addr.s_addr = address
        return socketAddress
    }

    package var host: String {
        let octets = withUnsafeBytes(of: address) { Array($0) }
        return octets.map(String.init).joined(separator: ".")
    }

    package var description: String { "\(host):\(port)" }
}
