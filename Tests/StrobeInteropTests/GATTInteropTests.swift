import Foundation
import Strobe
import Synchronization
import Testing

/// The connection layer, L2CAP and the GATT client against Bumble's GATT server on Bumble's
/// virtual controller: a peer someone else wrote.
@Suite(.timeLimit(.minutes(2))) struct GATTInteropTests {
    static let service = ATTUUID(string: "6E400001-B5A3-F393-E0A9-E50E24DC0001")!
    static let longRead = ATTUUID(string: "6E400002-B5A3-F393-E0A9-E50E24DC0001")!
    static let write = ATTUUID(string: "6E400003-B5A3-F393-E0A9-E50E24DC0001")!
    static let notify = ATTUUID(string: "6E400004-B5A3-F393-E0A9-E50E24DC0001")!
    static let indicate = ATTUUID(string: "6E400005-B5A3-F393-E0A9-E50E24DC0001")!

    /// Connects by name, discovers the test service and returns its characteristics by UUID.
    static func connect(_ host: HostUnderTest, name: String) async throws -> (LEConnection, [ATTUUID: GATTCharacteristic]) {
        let connection = try await host.central.connect(name: name)
        let services = try await connection.gatt.discoverPrimaryServices(uuid: service)
        let found = try #require(services.first)
        let characteristics = try await connection.gatt.discoverCharacteristics(of: found)
        return (connection, Dictionary(characteristics.map { ($0.uuid, $0) }, uniquingKeysWith: { a, _ in a }))
    }

    @Test(arguments: [23, 247])
    func longReadAndBothKindsOfWrite(mtu: Int) async throws {
        let peripheral = try await BumblePeripheral()
        let host = try await HostUnderTest(transport: peripheral.transport, configuration: .init(preferredMTU: mtu))
        defer { host.close() }
        let (connection, characteristics) = try await Self.connect(host, name: peripheral.name)
        #expect(connection.bearer.mtu == mtu)

        let value = try await connection.gatt.readLong(handle: try #require(characteristics[Self.longRead]).valueHandle)
        #expect(value == (0..<300).map { UInt8($0 % 256) })

        let writeHandle = try #require(characteristics[Self.write]).valueHandle
        for index in 0..<5 { try await connection.gatt.write([UInt8(index)], handle: writeHandle) }
        for index in 0..<7 { try await connection.gatt.writeWithoutResponse([UInt8(index)], handle: writeHandle) }
        try await connection.disconnect()
        let summary = try await peripheral.stop()
        #expect(summary["write_requests"] as? Int == 5)
        #expect(summary["write_commands"] as? Int == 7)
        #expect(summary["mtu"] as? Int == mtu)
    }
}
