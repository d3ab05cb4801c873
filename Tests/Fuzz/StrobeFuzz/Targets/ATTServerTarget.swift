import StrobeHCI
import StrobeHost

extension FuzzTarget {
    /// What a GATT server receives: the sequence of requests, commands and confirmations through a
    /// bearer with a server role over a database with every kind of attribute (long values,
    /// writable, notifying and indicating characteristics, descriptors).
    static let attServer = FuzzTarget(
        name: "att-server", summary: "ATT requests and commands as the GATT server answers them",
        run: { input in
            let bearer = ATTBearer(channel: ATTChannelSink(), configuration: .init(preferredMTU: 247))
            let server = GATTServerConnection(database: FuzzDatabase.make(), bearer: bearer)
            PacketSequence.forEach(input) { pdu in bearer.receive(pdu, at: HostTime(nanoseconds: 0)) }
            server.close()
            bearer.close(.local)
        },
        seeds: { capture in CaptureRecords.attRuns(of: capture) })
}

/// The database the server target answers from.
enum FuzzDatabase {
    static func make() -> GATTAttributeDatabase {
        let database = GATTAttributeDatabase()
        database.addPrimaryService(.genericAccessService)
        database.addCharacteristic(BluetoothUUID(0x2A00), properties: [.read], value: Array("Fuzz".utf8))
        database.addPrimaryService(BluetoothUUID(0xFFF0))
        database.addCharacteristic(BluetoothUUID(0xFFF1), properties: [.read], value: (0..<300).map { UInt8($0 & 0xFF) })
        database.addCharacteristic(
            BluetoothUUID(0xFFF2), properties: [.read, .write, .writeWithoutResponse],
            onWrite: { _, value in value.first == 0xFF ? .valueNotAllowed : nil })
        database.addCharacteristic(BluetoothUUID(0xFFF3), properties: [.notify])
        database.addCharacteristic(BluetoothUUID(0xFFF4), properties: [.indicate, .read], value: [1])
        database.addDescriptor(.characteristicUserDescription, value: Array("Alarms".utf8))
        return database
    }
}
