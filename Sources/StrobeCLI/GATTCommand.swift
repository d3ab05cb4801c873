import ArgumentParser
import Foundation
import Strobe

/// `strobe gatt`: any device's GATT database, as a Bluetooth engineer reads and writes it.
struct GATTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Read, write and subscribe to any device's characteristics.",
        discussion: "UUID|HANDLE names a characteristic by its UUID (16-bit like 2A19, or 128-bit) or by its value handle (0x and hex).",
        subcommands: [GATTTreeCommand.self, GATTReadCommand.self, GATTWriteCommand.self, GATTSubscribeCommand.self])
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: GATTTargetOptions
    @OptionGroup var linkSecurity: LinkSecurityOptions
}

/// `strobe gatt tree`: services, included services, characteristics and descriptors.
struct GATTTreeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tree", abstract: "Print the device's GATT database.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: GATTTargetOptions
    @OptionGroup var linkSecurity: LinkSecurityOptions
    @Flag(help: "One JSON object: {\"services\":[...]}.") var json = false
    @Flag(help: "Read and show every readable characteristic's value.") var read = false

    struct Tree: Encodable {
        var services: [Service]
    }

    struct Service: Encodable {
        var uuid: String
        var handle: UInt16
        var endHandle: UInt16
        var name: String?
        var includedServices: [Included]
        var characteristics: [Characteristic]
    }

    struct Included: Encodable {
        var uuid: String
        var handle: UInt16
        var endHandle: UInt16
    }

    struct Characteristic: Encodable {
        var uuid: String
        var handle: UInt16
        var valueHandle: UInt16
        var properties: [String]
        var name: String?
        var value: String?
        /// Why `--read` could not read it (the peer's ATT error), when it could not.
        var readError: String?
        var descriptors: [Descriptor]
    }

    struct Descriptor: Encodable {
        var uuid: String
        var handle: UInt16
        var name: String?
    }

    func run() async throws {
        let session = try await ControllerSession.open(global) { try linkSecurity.configure(&$0, target, global) }
        try await session.closing {
            let connection = try await linkSecurity.connect(target, session)
            let database = try await connection.discoverDatabase()
            var tree = Tree(services: [])
            for service in database.services {
                var entry = Service(
                    uuid: "\(service.service.uuid)", handle: service.service.startHandle.rawValue,
                    endHandle: service.service.endHandle.rawValue, name: service.service.uuid.name,
                    includedServices: service.includedServices.map {
                        Included(uuid: "\($0.service.uuid)", handle: $0.service.startHandle.rawValue, endHandle: $0.service.endHandle.rawValue)
                    },
                    characteristics: [])
                for found in service.characteristics {
                    let characteristic = found.characteristic
                    var item = Characteristic(
                        uuid: "\(characteristic.uuid)", handle: characteristic.declarationHandle.rawValue,
                        valueHandle: characteristic.valueHandle.rawValue, properties: Self.names(characteristic.properties),
                        name: characteristic.uuid.name,
                        descriptors: found.descriptors.map { Descriptor(uuid: "\($0.uuid)", handle: $0.handle.rawValue, name: $0.uuid.name) })
                    if read, characteristic.properties.contains(.read) {
                        do throws(StrobeError) {
                            item.value = try await connection.gatt.readLong(handle: characteristic.valueHandle).hexString
                        } catch {
                            guard case .att(let error) = error else { throw error }
                            item.readError = "\(error.code)"
                        }
                    }
                    entry.characteristics.append(item)
                }
                tree.services.append(entry)
            }
            try await connection.disconnect()
            if json {
                try JSONOutput.print(tree)
            } else {
                print(Self.text(tree))
            }
        }
    }

    static func names(_ properties: GATTCharacteristicProperties) -> [String] {
        let all: [(GATTCharacteristicProperties, String)] = [
            (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "writeWithoutResponse"), (.write, "write"),
            (.notify, "notify"), (.indicate, "indicate"), (.authenticatedSignedWrites, "authenticatedSignedWrites"),
            (.extendedProperties, "extendedProperties"),
        ]
        return all.filter { properties.contains($0.0) }.map(\.1)
    }

    static func text(_ tree: Tree) -> String {
        func handle(_ value: UInt16) -> String { "\(AttributeHandle(rawValue: value))" }
        func named(_ uuid: String, _ name: String?) -> String { name.map { "\(uuid) \($0)" } ?? uuid }
        var lines: [String] = []
        for service in tree.services {
            lines.append("service \(named(service.uuid, service.name)) [\(handle(service.handle))-\(handle(service.endHandle))]")
            for included in service.includedServices {
                lines.append("  includes \(included.uuid) [\(handle(included.handle))-\(handle(included.endHandle))]")
            }
            for characteristic in service.characteristics {
                var line = "  characteristic \(named(characteristic.uuid, characteristic.name)) value \(handle(characteristic.valueHandle)) "
                    + "(\(characteristic.properties.joined(separator: ", ")))"
                if let value = characteristic.value { line += " = \(value.isEmpty ? "(empty)" : value)" }
                if let error = characteristic.readError { line += " = unreadable: \(error)" }
                lines.append(line)
                for descriptor in characteristic.descriptors {
                    lines.append("    descriptor \(named(descriptor.uuid, descriptor.name)) \(handle(descriptor.handle))")
                }
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// `strobe gatt read`: one characteristic's whole value.
struct GATTReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "read", abstract: "Print a characteristic's value as hex (long values read whole).")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: GATTTargetOptions
    @OptionGroup var linkSecurity: LinkSecurityOptions
    @Argument(help: "UUID|HANDLE") var attribute: AttributeReference

    func run() async throws {
        let session = try await ControllerSession.open(global) { try linkSecurity.configure(&$0, target, global) }
        try await session.closing {
            let connection = try await linkSecurity.connect(target, session)
            let handle = try await attribute.valueHandle(in: connection)
            let value = try await GATTCommandError.naming("read", handle) { try await connection.gatt.readLong(handle: handle) }
            try await connection.disconnect()
            print(value.hexString)
        }
    }
}

/// `strobe gatt write`: one value, with the write procedure its length needs.
struct GATTWriteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Write a value (hex) to a characteristic; prints nothing on success.",
        discussion: "With a response, values longer than ATT_MTU - 3 go as a long write (Prepare Write / Execute Write).")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: GATTTargetOptions
    @OptionGroup var linkSecurity: LinkSecurityOptions
    @Argument(help: "UUID|HANDLE") var attribute: AttributeReference
    @Argument(help: "The value, as hex bytes.") var value: String
    @Flag(help: "Write Command (no response; at most ATT_MTU - 3 bytes).") var withoutResponse = false

    func validate() throws {
        guard [UInt8](hexString: value) != nil else { throw ValidationError(GATTCommandError.notHex(value).description) }
    }

    func run() async throws {
        let bytes = [UInt8](hexString: value) ?? []
        let session = try await ControllerSession.open(global) { try linkSecurity.configure(&$0, target, global) }
        try await session.closing {
            let connection = try await linkSecurity.connect(target, session)
            let handle = try await attribute.valueHandle(in: connection)
            try await GATTCommandError.naming("write", handle) {
                try await connection.gatt.write(bytes, handle: handle, withResponse: !withoutResponse)
            }
            if withoutResponse {
                // A Write Command has no answer. ATT keeps order, so the answer to any request (here
                // Find Information on the same handle, an error or not) means the peer took the write.
                do {
                    _ = try await connection.bearer.request(ATTFindInformationRequest(startingHandle: handle, endingHandle: handle))
                } catch is ATTError {
                    // An Error Response is an answer too. A timeout or a lost link is not: it fails.
                }
            }
            try await connection.disconnect()
        }
    }
}
